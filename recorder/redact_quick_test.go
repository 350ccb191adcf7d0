package recorder

import (
	"strings"
	"testing"
)

// TestTheQuickKeyLookSaysNoOnlyWhereNoSensitiveKeyEnds checks every two
// bytes before a separator, alone, after a quote, an escaped quote or a
// blank, and at the end of a sensitive key: where mayFollowSensitiveKey
// says false, keyEnd and sensitiveKeyEnd find no sensitive key either.
func TestTheQuickKeyLookSaysNoOnlyWhereNoSensitiveKeyEnds(t *testing.T) {
	for _, before := range []string{"", "x", "passwo", "secret_k", "api_k", "toke", "o", "authorizati", "a", "secret_key_bas"} {
		for a := range 256 {
			for b := range 256 {
				for _, after := range []string{"", `"`, "'", `\"`, " ", `" `, ":"} {
					for _, sep := range []string{":", "="} {
						s := before + string([]byte{byte(a), byte(b)}) + after + sep
						p := len(s) - 1
						k, _ := keyEnd(s, p)
						if !mayFollowSensitiveKey(s, p) && sensitiveKeyEnd(s, k) {
							t.Fatalf("the quick look says no sensitive key ends before the separator of %q", s)
						}
					}
				}
			}
		}
	}
}

// TestTheColonsQuickLookAgreesWithItsMatchers: where colonSecretHere says
// no without calling the matchers, at every two bytes before a colon and
// every byte after it, neither the pair matcher nor the URL matchers
// would have said yes.
func TestTheColonsQuickLookAgreesWithItsMatchers(t *testing.T) {
	for _, before := range []string{"", "x", "passwo", "a", "https", `"token`} {
		for a := range 256 {
			for b := range 256 {
				for _, after := range []string{"", "x", "/", "//u:pw@host", "//hooks.slack.com/services/T0/B0/abcdefghijklmnop", ` "secretvalue1"`, " v"} {
					s := before + string([]byte{byte(a), byte(b)}) + ":" + after
					p := len(before) + 2
					full := pairHere(s, p)
					if !full && strings.HasPrefix(s[p:], "://") {
						_, ok := webhookAt(s, p)
						full = ok || userinfoAfter(s, p)
					}
					if got := colonSecretHere(s, p); got != full {
						t.Fatalf("colonSecretHere(%q) = %v, its matchers say %v", s, got, full)
					}
				}
			}
		}
	}
}
