// Four ways to verify one RSA-2048 PKCS #1 v1.5 SHA-256 signature with OpenSSL 3, timed in
// interleaved batches of 50 calls on one thread, so the machine's drift hits all four alike.
// Used to choose how RSAPublicOperation (Sources/AppNativeCrypto) computes s^e mod n; run by
// Benchmarks/rsa-variants.sh. Prints verify/s per variant and the ratio to EVP_PKEY_verify.
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHECK(x) do { if (!(x)) { fprintf(stderr, "failed: %s (line %d)\n", #x, __LINE__); exit(1); } } while (0)

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 4;
    int rounds = argc > 2 ? atoi(argv[2]) : 4;
    // DigestInfo for SHA-256 (RFC 8017 §9.2 note 1) followed by a stand-in 32-byte hash.
    unsigned char digest_info[51] = {0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                     0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20};
    for (int i = 19; i < 51; i++) digest_info[i] = (unsigned char)i;

    EVP_PKEY *key = EVP_RSA_gen(2048);
    CHECK(key);
    unsigned char signature[256], encoded[256], expected[256];
    size_t signature_length = sizeof signature;
    EVP_PKEY_CTX *signer = EVP_PKEY_CTX_new(key, NULL);
    CHECK(EVP_PKEY_sign_init(signer) == 1 && EVP_PKEY_CTX_set_rsa_padding(signer, RSA_PKCS1_PADDING) == 1);
    CHECK(EVP_PKEY_sign(signer, signature, &signature_length, digest_info, sizeof digest_info) == 1);
    // 1. What `openssl speed rsa2048` runs: a prepared context, EVP_PKEY_verify on the block.
    EVP_PKEY_CTX *verifier = EVP_PKEY_CTX_new(key, NULL);
    CHECK(EVP_PKEY_verify_init(verifier) == 1 && EVP_PKEY_CTX_set_rsa_padding(verifier, RSA_PKCS1_PADDING) == 1);

    BIGNUM *n = NULL, *e = NULL;
    CHECK(EVP_PKEY_get_bn_param(key, "n", &n) == 1 && EVP_PKEY_get_bn_param(key, "e", &e) == 1);
    BN_CTX *context = BN_CTX_new();
    BN_MONT_CTX *mont = BN_MONT_CTX_new();
    CHECK(BN_MONT_CTX_set(mont, n, context) == 1);
    BIGNUM *s = BN_new(), *m = BN_new(), *s_mont = BN_new(), *y = BN_new(), *one = BN_new();
    BIGNUM *correction = BN_new(), *prefix = BN_new(), *want = BN_new();
    // R^e mod n, with R mod n from converting 1 into the Montgomery domain.
    CHECK(BN_one(one) && BN_to_montgomery(correction, one, mont, context) && BN_mod_exp(correction, correction, e, n, context));
    expected[0] = 0x00; expected[1] = 0x01;
    memset(expected + 2, 0xFF, 256 - 3 - 51);
    expected[256 - 52] = 0x00;
    memcpy(expected + 256 - 51, digest_info, 51);
    unsigned char prefix_bytes[256];
    memcpy(prefix_bytes, expected, 256);
    memset(prefix_bytes + 256 - 32, 0, 32);
    CHECK(BN_bin2bn(prefix_bytes, 256, prefix));

    printf("%-44s %10s %10s %10s %10s\n", "round: verify/s (ratio to EVP_PKEY_verify)", "EVP", "exp_mont", "in/out", "shipped");
    for (int round = 1; round <= rounds; round++) {
        double t[4] = {0, 0, 0, 0};
        long calls = 0;
        double start = cpu_seconds();
        while (cpu_seconds() - start < seconds) {
            double t0 = cpu_seconds();
            for (int i = 0; i < 50; i++)
                CHECK(EVP_PKEY_verify(verifier, signature, 256, digest_info, sizeof digest_info) == 1);
            double t1 = cpu_seconds();
            // 2. BN_mod_exp_mont with a kept BN_CTX and Montgomery context.
            for (int i = 0; i < 50; i++) {
                CHECK(BN_bin2bn(signature, 256, s) && BN_cmp(s, n) < 0);
                CHECK(BN_mod_exp_mont(m, s, e, n, context, mont));
                CHECK(BN_bn2binpad(m, encoded, 256) == 256 && memcmp(encoded, expected, 256) == 0);
            }
            double t2 = cpu_seconds();
            // 3. Square-and-multiply in the Montgomery domain, converting s in and m out.
            for (int i = 0; i < 50; i++) {
                CHECK(BN_bin2bn(signature, 256, s) && BN_cmp(s, n) < 0);
                CHECK(BN_to_montgomery(s_mont, s, mont, context) && BN_copy(y, s_mont));
                for (int bit = BN_num_bits(e) - 2; bit >= 0; bit--) {
                    CHECK(BN_mod_mul_montgomery(y, y, y, mont, context));
                    if (BN_is_bit_set(e, bit)) CHECK(BN_mod_mul_montgomery(y, y, s_mont, mont, context));
                }
                CHECK(BN_from_montgomery(m, y, mont, context));
                CHECK(BN_bn2binpad(m, encoded, 256) == 256 && memcmp(encoded, expected, 256) == 0);
            }
            double t3 = cpu_seconds();
            // 4. What RSAPublicOperation does: no conversions, one product by R^e mod n, and the
            //    expected encoding compared as a number (prefix + digest).
            for (int i = 0; i < 50; i++) {
                CHECK(BN_bin2bn(signature, 256, s) && BN_cmp(s, n) < 0 && BN_copy(y, s));
                for (int bit = BN_num_bits(e) - 2; bit >= 0; bit--) {
                    CHECK(BN_mod_mul_montgomery(y, y, y, mont, context));
                    if (BN_is_bit_set(e, bit)) CHECK(BN_mod_mul_montgomery(y, y, s, mont, context));
                }
                CHECK(BN_mod_mul_montgomery(y, y, correction, mont, context));
                CHECK(BN_bin2bn(digest_info + 19, 32, want) && BN_add(want, want, prefix) && BN_cmp(y, want) == 0);
            }
            double t4 = cpu_seconds();
            t[0] += t1 - t0; t[1] += t2 - t1; t[2] += t3 - t2; t[3] += t4 - t3;
            calls += 50;
        }
        printf("round %d %36s", round, "");
        for (int v = 0; v < 4; v++) printf(" %6.0f (%.2f)", calls / t[v], t[0] / t[v]);
        printf("\n");
    }
    return 0;
}
