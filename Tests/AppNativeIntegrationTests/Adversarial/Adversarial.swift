// The adversarial suite.
//
// Each file here (its suite type named `Adversarial…Tests`) holds the requests an attacker would send at one door of the gateway, through the
// gateway binary and real peers. Every suite's display name starts with `Adversarial: `; the whole suite runs
// alone with `swift test --skip-build --filter Adversarial`; `make test` runs it with the rest.
// Each test names the threat it answers; `docs/security.md` ("Every door, the same rules") lists
// each threat with its defence and the test that holds it.

/// Namespace of the adversarial suite's shared helpers (each door's tests sit in their own file).
enum Adversarial {}
