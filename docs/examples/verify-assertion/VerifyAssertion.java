// Verifies the gateway's signed identity assertion (the X-AppNative-Identity request header)
// with the JDK alone (Java 17): fetch the gateway's key set, pick the key named by the
// assertion's kid, check the ES256 signature, then the issuer, audience and lifetime.
//
//   java VerifyAssertion.java http://gateway.internal:8080/.auth/jwks.json "$assertion"
//
// Prints the verified claims (JSON) and exits 0, or prints why not and exits 1. In a backend,
// call fetchKeys once and again when an assertion names an unknown kid (key rotation), and
// verify each request's header with verify. A JSON library the backend already has can replace
// the small parser at the end.

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.ECFieldFp;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class VerifyAssertion {
    static final String ISSUER = "app-native-gateway";
    static final String AUDIENCE = "app-native-upstream"; // the gateway's ASSERTION_AUDIENCE
    static final long LEEWAY_SECONDS = 30;

    /** Why an assertion is refused. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String reason) { super(reason); }
    }

    /** The gateway's /.auth/jwks.json: its P-256 public keys by kid. */
    static Map<String, PublicKey> fetchKeys(String url) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) throw new Refused("key set: status " + response.statusCode());
        ECParameterSpec p256 = p256();
        Map<String, PublicKey> keys = new HashMap<>();
        for (Object entry : (List<?>) ((Map<?, ?>) Json.parse(response.body())).get("keys")) {
            Map<?, ?> key = (Map<?, ?>) entry;
            if (!"EC".equals(key.get("kty")) || !"P-256".equals(key.get("crv")) || !(key.get("kid") instanceof String kid)) continue;
            byte[] x = Base64.getUrlDecoder().decode((String) key.get("x"));
            byte[] y = Base64.getUrlDecoder().decode((String) key.get("y"));
            if (x.length != 32 || y.length != 32) continue;
            ECPoint point = new ECPoint(new BigInteger(1, x), new BigInteger(1, y));
            if (!isOnCurve(point, p256)) continue;
            keys.put(kid, KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(point, p256)));
        }
        return keys;
    }

    /** Checks the assertion and returns its claims (the JSON payload). */
    static String verify(String assertion, Map<String, PublicKey> keys, Instant now) throws Refused, GeneralSecurityException {
        String[] parts = assertion.split("\\.", -1);
        if (parts.length != 3) throw new Refused("not a JWT");
        Map<?, ?> header = object(decode(parts[0]), "header");
        if (!"ES256".equals(header.get("alg"))) throw new Refused("algorithm " + header.get("alg")); // never the token's choice
        PublicKey key = keys.get(header.get("kid"));
        if (key == null) throw new Refused("unknown kid (refetch the key set once)");
        byte[] signature = Base64.getUrlDecoder().decode(parts[2]);
        if (signature.length != 64) throw new Refused("malformed signature"); // JWS ES256: r and s, 32 bytes each
        Signature verifier = Signature.getInstance("SHA256withECDSAinP1363Format");
        verifier.initVerify(key);
        verifier.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
        if (!verifier.verify(signature)) throw new Refused("bad signature");
        String payload = decode(parts[1]);
        Map<?, ?> claims = object(payload, "payload");
        if (!ISSUER.equals(claims.get("iss"))) throw new Refused("wrong issuer");
        Object aud = claims.get("aud");
        if (!(AUDIENCE.equals(aud) || aud instanceof List<?> list && list.contains(AUDIENCE))) throw new Refused("wrong audience");
        long seconds = now.getEpochSecond();
        if (!(claims.get("exp") instanceof Number exp) || seconds > exp.longValue() + LEEWAY_SECONDS) throw new Refused("expired");
        if (claims.get("iat") instanceof Number iat && iat.longValue() > seconds + LEEWAY_SECONDS) throw new Refused("issued in the future");
        if (!(claims.get("sub") instanceof String) || !(claims.get("tid") instanceof String)) throw new Refused("no subject or tenant");
        return payload;
    }

    public static void main(String[] arguments) {
        if (arguments.length != 2) {
            System.err.println("usage: java VerifyAssertion.java JWKS_URL ASSERTION");
            System.exit(2);
        }
        try {
            String claims = verify(arguments[1], fetchKeys(arguments[0]), Instant.now());
            // Key users by sub (the Entra object id) and tid, never by email. The claims are UTF-8
            // JSON, whatever the platform's default charset.
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8).println(claims);
        } catch (Exception error) {
            System.err.println("refused: " + error.getMessage());
            System.exit(1);
        }
    }

    static ECParameterSpec p256() throws GeneralSecurityException {
        AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
        parameters.init(new ECGenParameterSpec("secp256r1"));
        return parameters.getParameterSpec(ECParameterSpec.class);
    }

    /** y² = x³ + ax + b (mod p): a key off the curve is refused before it is used. */
    static boolean isOnCurve(ECPoint point, ECParameterSpec spec) {
        BigInteger p = ((ECFieldFp) spec.getCurve().getField()).getP();
        BigInteger x = point.getAffineX(), y = point.getAffineY();
        if (x.compareTo(p) >= 0 || y.compareTo(p) >= 0) return false;
        BigInteger right = x.pow(3).add(spec.getCurve().getA().multiply(x)).add(spec.getCurve().getB()).mod(p);
        return y.pow(2).mod(p).equals(right);
    }

    static String decode(String part) throws Refused {
        try {
            return new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException error) {
            throw new Refused("not base64url");
        }
    }

    static Map<?, ?> object(String text, String what) throws Refused {
        try {
            if (Json.parse(text) instanceof Map<?, ?> map) return map;
        } catch (IllegalArgumentException error) {
            // refused below
        }
        throw new Refused(what + " is not a JSON object");
    }

    /** Just enough JSON (RFC 8259) for a key set and a JWT: objects, arrays, strings, numbers, literals. */
    static final class Json {
        private final String text;
        private int at;

        private Json(String text) { this.text = text; }

        static Object parse(String text) {
            Json parser = new Json(text);
            Object value = parser.value(0);
            parser.space();
            if (parser.at != text.length()) throw new IllegalArgumentException("trailing characters");
            return value;
        }

        private Object value(int depth) {
            if (depth > 32) throw new IllegalArgumentException("nested too deeply");
            space();
            if (at >= text.length()) throw new IllegalArgumentException("unexpected end");
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> map = new LinkedHashMap<>();
                at++;
                space();
                if (peek('}')) return map;
                do {
                    space();
                    String name = string();
                    space();
                    expect(':');
                    map.put(name, value(depth + 1));
                    space();
                } while (take(','));
                expect('}');
                return map;
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                at++;
                space();
                if (peek(']')) return list;
                do {
                    list.add(value(depth + 1));
                    space();
                } while (take(','));
                expect(']');
                return list;
            }
            if (c == '"') return string();
            for (String literal : new String[] {"true", "false", "null"}) {
                if (text.startsWith(literal, at)) {
                    at += literal.length();
                    return literal.equals("null") ? null : Boolean.valueOf(literal);
                }
            }
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
            if (start == at) throw new IllegalArgumentException("unexpected character");
            return new java.math.BigDecimal(text.substring(start, at));
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == '"') return out.toString();
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (at >= text.length()) break;
                char escape = text.charAt(at++);
                switch (escape) {
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (at + 4 > text.length()) throw new IllegalArgumentException("short \\u escape");
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> out.append(escape); // \" \\ \/
                }
            }
            throw new IllegalArgumentException("unterminated string");
        }

        private void space() {
            while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) at++;
        }

        private boolean peek(char c) {
            if (at < text.length() && text.charAt(at) == c) {
                at++;
                return true;
            }
            return false;
        }

        private boolean take(char c) { return peek(c); }

        private void expect(char c) {
            if (!peek(c)) throw new IllegalArgumentException("expected " + c);
        }
    }
}
