package recorder

import (
	"slices"
	"strings"
	"testing"
)

// TestTheQuickKeyLookSaysNoOnlyWhereNoSensitiveKeyEnds checks every two
// bytes before a separator, alone, after a quote, an escaped quote or a
// blank, and at the end of a sensitive key: where mayFollowSensitiveKey
// says false, keyEnd and sensitiveKeyEnd find no sensitive key either.
func TestTheQuickKeyLookSaysNoOnlyWhereNoSensitiveKeyEnds(t *testing.T) {
	for _, before := range []string{"", "x", "passwo", "secret_k", "api_k", "toke", "o", "authorizati", "a", "secret_key_bas", "contrase\xc3"} {
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

// TestTheQuickKeyLookKnowsTheThirdLastLetter checks the quick look at the
// letter before a key's last two, after the start of every sensitive
// suffix in either case: where it says false, no sensitive key ends
// before the separator.
func TestTheQuickKeyLookKnowsTheThirdLastLetter(t *testing.T) {
	const keyBytes = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
	for _, sufs := range sensitiveKeySuffixes {
		for _, suf := range sufs {
			start := suf.suf[:len(suf.suf)-2]
			for _, before := range []string{start, strings.ToUpper(start), "x" + start[1:]} {
				for i := range len(keyBytes) {
					for j := range len(keyBytes) {
						for _, after := range []string{"", `"`} {
							s := before + keyBytes[i:i+1] + keyBytes[j:j+1] + after + "="
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
}

// TestARuleDropsAWordKeywordItsMatchesMakeRedundant checks that a rule
// keeps no keyword of letters only when every match of its regexp holds
// another of its keywords, and keeps it when some match may not.
func TestARuleDropsAWordKeywordItsMatchesMakeRedundant(t *testing.T) {
	for id, want := range map[string]string{
		"cloudflare-origin-ca-key": "v1.0-",                        // every match starts v1.0-
		"intra42-client-secret":    "s-s4t2af- s-s4t2ud-",          // one of two spellings
		"microsoft-teams-webhook":  "webhook.office.com webhookb2", // not "incomingwebhook"
		"sourcegraph-access-token": "sgp_ sourcegraph",             // a bare 40 hex digits holds neither
		"aws-access-token":         "a3t abia acca akia asia",      // none a word to drop
	} {
		i := slices.IndexFunc(rules, func(r secretRule) bool { return r.id == id })
		if i < 0 {
			t.Fatalf("no rule %s", id)
		}
		if got := strings.Join(neededKeywords(&rules[i]), " "); got != want {
			t.Errorf("%s keeps %q, want %q", id, got, want)
		}
	}
}
