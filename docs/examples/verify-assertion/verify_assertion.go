// Verifies the gateway's signed identity assertion (the X-AppNative-Identity request header)
// with Go's standard library only: fetch the gateway's key set, pick the key named by the
// assertion's kid, check the ES256 signature, then the issuer, audience and lifetime.
//
//	go run verify_assertion.go http://gateway.internal:8080/.auth/jwks.json "$assertion"
//
// Prints the verified claims (JSON) and exits 0, or prints why not and exits 1. In a backend,
// call fetchKeys once and again when an assertion names an unknown kid (key rotation), and
// verify each request's header with verify.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"strings"
	"time"
)

const (
	issuer   = "app-native-gateway"
	audience = "app-native-upstream" // the gateway's ASSERTION_AUDIENCE
	leeway   = 30 * time.Second
)

// fetchKeys reads the gateway's /.auth/jwks.json: its P-256 public keys by kid.
func fetchKeys(url string) (map[string]*ecdsa.PublicKey, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	response, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	if response.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("key set: status %d", response.StatusCode)
	}
	var set struct {
		Keys []struct {
			Kty string `json:"kty"`
			Crv string `json:"crv"`
			Kid string `json:"kid"`
			X   string `json:"x"`
			Y   string `json:"y"`
		} `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(response.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("key set: %w", err)
	}
	keys := map[string]*ecdsa.PublicKey{}
	for _, key := range set.Keys {
		if key.Kty != "EC" || key.Crv != "P-256" || key.Kid == "" {
			continue
		}
		x, errX := base64.RawURLEncoding.DecodeString(key.X)
		y, errY := base64.RawURLEncoding.DecodeString(key.Y)
		if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
			continue
		}
		point := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
		if !point.Curve.IsOnCurve(point.X, point.Y) {
			continue
		}
		keys[key.Kid] = point
	}
	return keys, nil
}

// verify checks the assertion and returns its claims (the JSON payload).
func verify(assertion string, keys map[string]*ecdsa.PublicKey, now time.Time) ([]byte, error) {
	parts := strings.Split(assertion, ".")
	if len(parts) != 3 {
		return nil, errors.New("not a JWT")
	}
	headerJSON, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, errors.New("header is not base64url")
	}
	var header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal(headerJSON, &header); err != nil {
		return nil, errors.New("header is not JSON")
	}
	if header.Alg != "ES256" { // never let the token choose the algorithm
		return nil, fmt.Errorf("algorithm %q", header.Alg)
	}
	key, found := keys[header.Kid]
	if !found {
		return nil, errors.New("unknown kid (refetch the key set once)")
	}
	signature, err := base64.RawURLEncoding.Strict().DecodeString(parts[2])
	if err != nil || len(signature) != 64 { // JWS ES256: r and s, 32 bytes each
		return nil, errors.New("malformed signature")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(signature[:32]), new(big.Int).SetBytes(signature[32:])
	if !ecdsa.Verify(key, digest[:], r, s) {
		return nil, errors.New("bad signature")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, errors.New("payload is not base64url")
	}
	var claims struct {
		Iss string          `json:"iss"`
		Aud json.RawMessage `json:"aud"`
		Exp *int64          `json:"exp"`
		Iat *int64          `json:"iat"`
		Sub string          `json:"sub"`
		Tid string          `json:"tid"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, errors.New("payload is not JSON")
	}
	if claims.Iss != issuer {
		return nil, errors.New("wrong issuer")
	}
	var audiences []string
	var single string
	if json.Unmarshal(claims.Aud, &single) == nil {
		audiences = []string{single}
	} else if json.Unmarshal(claims.Aud, &audiences) != nil {
		return nil, errors.New("no audience")
	}
	matches := false
	for _, value := range audiences {
		matches = matches || value == audience
	}
	if !matches {
		return nil, errors.New("wrong audience")
	}
	if claims.Exp == nil || now.After(time.Unix(*claims.Exp, 0).Add(leeway)) {
		return nil, errors.New("expired")
	}
	if claims.Iat != nil && time.Unix(*claims.Iat, 0).After(now.Add(leeway)) {
		return nil, errors.New("issued in the future")
	}
	if claims.Sub == "" || claims.Tid == "" {
		return nil, errors.New("no subject or tenant")
	}
	return payload, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: verify_assertion JWKS_URL ASSERTION")
		os.Exit(2)
	}
	keys, err := fetchKeys(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "refused:", err)
		os.Exit(1)
	}
	claims, err := verify(os.Args[2], keys, time.Now())
	if err != nil {
		fmt.Fprintln(os.Stderr, "refused:", err)
		os.Exit(1)
	}
	// Key users by sub (the Entra object id) and tid, never by email.
	fmt.Println(string(claims))
}
