package recorder

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// Redacted replaces a secret in redacted text.
const Redacted = "[REDACTED]"

// Redactor rewrites free text before any sink sees it. The recorder calls
// it on every free-text field of a record: tool arguments and results,
// error text, message content, reasoning and tool-call arguments, message
// text and reasoning parts, assessment markdown, run metadata values and
// extension bodies. It must return s itself when there is nothing to change, and be
// safe for concurrent use.
type Redactor interface {
	Redact(s string) string
}

// RedactFunc adapts a function to a Redactor. It is as safe for
// concurrent use as the function is.
type RedactFunc func(s string) string

// Redact returns f(s).
func (f RedactFunc) Redact(s string) string { return f(s) }

// Secrets returns the built-in redactor, which a Recorder applies unless
// Options.KeepSecrets is set. It replaces with Redacted what three kinds
// of detection find, in the manner of gitleaks and detect-secrets:
//
//   - provider rules: the rules of gitleaks (v8.30.1, MIT licence) for
//     tokens with a known shape, such as AWS key ids, GitHub, GitLab,
//     Slack, Stripe, OpenAI and Anthropic tokens and a hundred others,
//     and a few of its own (Docker Hub, Telegram, Tencent, Vault tokens
//     of any length from 20, Braintree access tokens, AWS session
//     tokens, Honeycomb keys, webhook URLs, .netrc, .pgpass, sshpass,
//     the private lines of a PuTTY key file).
//     A rule's regular expression runs only around one of its keywords, and a match
//     counts only when its secret is as random as the rule asks (Shannon
//     entropy) and no allowlist of the rule lets it through;
//   - shapes it finds itself: sk-… keys, LaunchDarkly sdk-… and mob-…
//     keys, bearer tokens, JSON Web Tokens, PEM private key blocks,
//     NATS key seed blocks and OpenVPN static keys, the password in a URL's user information (to
//     the last '@' before the host) or a random token as its user, Slack
//     and Discord webhook paths, the key in the path of Infura's,
//     Alchemy's and Loggly's endpoints, curl's -u user:password (and a
//     random user with no password) and lftp's -u user,password,
//     mysql's -pPASSWORD, the value of a
//     --password-like flag (of a --account-key-like one when random or
//     a UUID, of a one-dash flag such as -setcookie when random, and of
//     a flag in a JSON array of arguments, ["--secret", "…"]), curl's -u
//     in a JSON string, the password flags of commands (openssl -k, zip -P,
//     ipmitool -P, ssh-keygen -N, mosquitto -P, altool -p, codecov -t
//     and those of passwordFlags), a -k that looks like a key, the
//     value of a table's row whose label ends in a sensitive word
//     (Access Token     …, after a run of blanks), the secrets among a
//     call's quoted arguments (callArgsSecretAt: a key passed to a call named for
//     one, the argument after an app id, a login's or auth tuple's
//     password (an LDAP simple bind's after its DN), a random
//     passphrase after a key a client takes, a random string anywhere,
//     as in Client("…"), in a JSON string too, whatever it escapes as
//     \uXXXX), the value a call sets a sensitive
//     name to, as in Header.Set("X-Api-Key", "…"), the user of curl's -u
//     KEY:x when it is random, and credentials JSON in base64 (a Docker
//     config's auths, a service account's key);
//   - context: the value of a key/value pair, in env files, JSON, YAML,
//     code, headers and query strings (key=value, key: value, "key":
//     "value", key := "value", "key" => "value", config["key"] = …,
//     key: Type = "value", and a pair in a JSON string inside another),
//     whose key ends in a sensitive word: password, secret, token,
//     api_key, access_key, private_key, authorization, auth, passcode,
//     pass_phrase, the word for a password in other languages
//     (Passwort, wachtwoord, senha, parola_chiave, mat_khau, пароль,
//     パスワード, 密码, كلمة_المرور) and the like always; key, sig,
//     signature, credentials, pass, pwd, cookie, salt, psk, hmac, master,
//     totp, _seed, certificate (not one in base64, MII…), _pat, appid, a
//     provider's mode (stripe_live, _test,
//     _prod, _sandbox) and the like when the value looks random (12 bytes
//     or more, varied, not a word, a UUID, a path, a URL, an id such as
//     Firebase's 1:…:web:… or a name ending in a digest), but not the key
//     of a cache, a table or an object or a public key (plainKeyKinds);
//     a value's text rather than its literal's prefix (b"…", N'…', @"…"),
//     a password full of punctuation to the end of its word, a UUID or
//     recovery words under a key that names them a secret, the text of an
//     XML element so named (<ApiKey>…</ApiKey>), a directive's value after
//     blanks (msmtp's password, snmpd's rocommunity, strongSwan's PSK), a
//     network's accounts (["0x…"]);
//     the values of an object after such a key whose keys are hosts
//     ({"bearer": {"repo.example.org": …}}); the value of a user key
//     that is a random token rather than a name; the value of a named
//     entry whose name is given as key (<add key="…Password" value=…>); a key
//     that holds a sensitive word before more of it
//     (DB_PASSWORD_PRIMARY, auth_blob) when the value looks random and
//     the key's last word does not name something about the secret
//     (secret_name, token_url); the password and token arguments of
//     commands (login -p, redis-cli -a, sqlcmd -P, keytool -storepass,
//     config:set, aws configure set, gh secret set --body, npm's
//     _authToken) and those they take as plain arguments (TOOL login
//     TOKEN, b2 authorize-account KEY_ID KEY, uplink access import
//     NAME GRANT, htpasswd -b, mc alias
//     set, rabbitmqctl add_user, smbclient -U user%password, sqlplus
//     user/password@db, ConvertTo-SecureString, what echo pipes into
//     --password-stdin or chpasswd, AUTH at redis-cli's prompt, SQL's
//     IDENTIFIED BY and PASSWORD '…'); the credentials package managers
//     keep for a host (composer or poetry config http-basic.HOST USER
//     PASSWORD, pypi-token.NAME TOKEN, BUNDLE_HOST__COM=user:password);
//     a secret right after its key id
//     (an AWS key id and secret key in a CSV row, a Razorpay key id and
//     secret in a tuple); the value of a named entry whose name is
//     sensitive ({"name": "DB_PASSWORD", "value": …}, --name
//     db-password --value …); a random value
//     after an environment-style name as a separate argument (ENV
//     API_TOKEN …, setx, set -x); and a random token within three lines
//     after "password", "API key" or "credential" (or <password>, its
//     brackets escaped in a JSON string); the value of a provider's own
//     X- header, whatever its name, when it is as random as a key and
//     the name says no id, trace or digest (X-Honeycomb-Team); and the
//     key in a URL's path after /hooks/ or /key/, or after the host of
//     an endpoint that takes one there (Ankr, QuickNode, GetBlock, Sumo
//     Logic). A value that names a
//     secret rather than holds it ($VAR, ${{ … }}, {{ … }},
//     os.environ[…], process.env.X, secretKey: password, a YAML tag such
//     as !vault, a shell's ${TOKEN:?message}), a placeholder (********,
//     YOUR_…, changeme, REPLACE_…, …EXAMPLE, <…>, the word password
//     itself, anything holding a run of x, as sk_test_xxxx… does, or
//     ending in six zeros, and a token that says it is fake, dummy, an
//     example or not-real), a value sops encrypted (ENC[…]) and a
//     boolean are left alone, as are the
//     tokens that page through lists or guard forms (next_page_token,
//     csrf_token), a token's setting made of words (no-check), numbers
//     joined by '.' (an analytics cookie's GA1.2.…) and a part of a name
//     that ':' joins (an ARN's secret:…). An authorization value keeps its scheme
//     ("Basic [REDACTED]"); a pair inside a JSON string ends where that
//     string does, so JSON text stays valid.
//
// Text holding none of these is returned unchanged without allocating,
// after one pass over its bytes that looks for both the shapes' anchors
// and the rules' keywords. The returned Redactor is safe for concurrent
// use.
func Secrets() Redactor { return RedactFunc(redactSecrets) }

type span struct{ start, end int }

// minSecretText is the length of the shortest text any shape matches:
// the key "auth", a separator and one byte of value.
const minSecretText = 6

func redactSecrets(s string) string {
	if len(s) < minSecretText {
		return s
	}
	from, keyword := firstSecret(s)
	if from < 0 && !keyword && !headerFirst(s) {
		return s
	}
	var buf [8]span
	spans := buf[:0]
	if from >= 0 {
		spans = secretSpans(s, from, spans)
	}
	var kbuf [8]keywordAt
	spans = ruleSpans(s, ruleKeywords.scan(s, kbuf[:0]), spans)
	if len(spans) == 0 {
		return s
	}
	return replaceSpans(s, spans)
}

// secretSpans appends what every finder finds in s, one pass each,
// looking at anchors from index from on. It is the full detector;
// firstSecret tells where it needs to start, if at all.
func secretSpans(s string, from int, spans []span) []span {
	spans = findAll(s, from, spans, "-", flagSecretAt)
	spans = findAll(s, from, spans, "_", underscoreSecretAt)
	spans = findAll(s, from, spans, "AKIA", awsKeyAt)
	spans = findAll(s, from, spans, "ASIA", awsKeyAt)
	spans = findAll(s, from, spans, "AIza", googleKeyAt)
	spans = findAll(s, from, spans, "Bearer", bearerAt)
	spans = findAll(s, from, spans, "bearer", bearerAt)
	spans = findAll(s, from, spans, "BEARER", bearerAt)
	spans = findAll(s, from, spans, "SG.", sKeyAt)
	spans = findAll(s, from, spans, "SK", sKeyAt)
	spans = findAll(s, from, spans, "J", jwtAt)
	spans = findAll(s, from, spans, "@", urlSecretAt)
	spans = findAll(s, from, spans, ":", colonOrURLKeyAt)
	spans = findAll(s, from, spans, "=", pairAt)
	spans = findAll(s, from, spans, "(", callSecretAt)
	spans = findAll(s, from, spans, "  ", rowValueAt)
	return spans
}

// findAll appends what the matcher at finds at each occurrence of anchor
// in s from index from on. After a match the search goes on from its end,
// or from the byte after the anchor when the match ends before it (a URL's
// password ends at its '@'), otherwise from the byte after the anchor.
func findAll(s string, from int, spans []span, anchor string, at func(s string, p int) (span, bool)) []span {
	for i := from; ; {
		j := strings.Index(s[i:], anchor)
		if j < 0 {
			return spans
		}
		p := i + j
		i = p + 1
		if m, ok := at(s, p); ok {
			spans = append(spans, m)
			i = max(m.end, i)
		}
	}
}

// anchors are the bytes firstSecret looks at: each is held by every
// secret of some shapes, and its matcher asks whether the finders would
// find a secret there. They are the finders' own anchors, except a URL's
// user information, found from the ':' of the "://" before it rather than
// from its '@'. An anchor common in prose names the bytes that may come
// right after it (next) or right before it (prev) when its matcher can
// match there; anchorPairs drops it elsewhere without calling the matcher.
// An anchor whose secrets start at a word's start (word) is dropped, too,
// after a byte of a word (isKeyByte).
var anchors = [...]struct {
	c          byte
	next, prev string
	word       bool
	here       func(s string, p int) bool
}{
	{'-', "", dashPrev, false, dashSecretHere},             // "sk-", "xoxb-", "glpat-", the last '-' of "-----BEGIN", a flag
	{'_', "", underscorePrev, false, underscoreSecretHere}, // "ghp_", "github_pat_", "sk_live_", "hf_", "npm_"
	{':', "", "", false, colonSecretHere},                  // a pair, a webhook URL, a URL's user information or endpoint key
	{'=', "", "", false, pairHere},                         // a pair
	{'A', "KSI", "", true, keyIDHere},                      // "AKIA", "ASIA", "AIza"
	{'B', "eE", "", true, bearerHere},                      // "Bearer", "BEARER"
	{'b', "eE", "", true, bearerHere},                      // "bearer"
	{'S', "GK", "", true, sKeyHere},                        // "SG.", "SK"
	{'J', "", "y", false, jwtHere},                         // the 'J' of "eyJ"
	{'(', "\"'\\ b", "", false, callArgHere},               // a random string passed to a call (as bytes too), or a value set by name
	{' ', " ", "\x00", false, rowValueHere},                // two blanks after a table's label, the first at an even index
}

// firstSecret returns an index at or before the first anchor at which
// secretSpans finds a secret, or -1 when it would find none, and, when it
// finds none, whether a keyword of the rules is in s. It runs the same
// matchers as the finders, so its answer is exact: a finder only moves
// past an anchor whose matcher failed, or past a match. Since no finder
// matches before the index returned, the finders can start there and
// find what they would find from 0.
func firstSecret(s string) (int, bool) {
	p := 0
	keyword := false
	for ; p+16 <= len(s); p += 16 {
		// Sixteen bytes at a time: a bit for each anchor among them,
		// from a table lookup for each two bytes, and then a matcher
		// call for each set bit only. Most blocks hold no anchor: the
		// lookups are tested together before they are placed. Slicing
		// the window first drops the bounds checks. The same lookups
		// tell where a rule's keyword may be.
		w := s[p : p+16]
		h := uint64(anchorPairs[uint16(w[0])|uint16(w[1])<<8]) | uint64(anchorPairs[uint16(w[2])|uint16(w[3])<<8])<<8 |
			uint64(anchorPairs[uint16(w[4])|uint16(w[5])<<8])<<16 | uint64(anchorPairs[uint16(w[6])|uint16(w[7])<<8])<<24 |
			uint64(anchorPairs[uint16(w[8])|uint16(w[9])<<8])<<32 | uint64(anchorPairs[uint16(w[10])|uint16(w[11])<<8])<<40 |
			uint64(anchorPairs[uint16(w[12])|uint16(w[13])<<8])<<48 | uint64(anchorPairs[uint16(w[14])|uint16(w[15])<<8])<<56
		if h == 0 {
			continue
		}
		for m := h & (3 * slots); m != 0; m &= m - 1 {
			// Bit 0 of lookup j is the anchor at p+2j, bit 1 the one
			// at p+2j+1.
			t := bits.TrailingZeros64(m)
			if i := p + 2*(t>>3) + t&1; anchorAt(s, i) {
				return i, true
			}
		}
		if !keyword && h&(keywordBit*slots) != 0 {
			keyword = ruleKeywords.inPairs(s, p, h&(keywordBit*slots))
		}
	}
	if p < len(s) {
		// The last bytes, fewer than sixteen, padded with zeros (no
		// anchor, and any byte to a keyword that may end the text).
		var b [16]byte
		copy(b[:], s[p:])
		var h uint64
		for j := 0; j < len(b); j += 2 {
			h |= uint64(anchorPairs[uint16(b[j])|uint16(b[j+1])<<8]) << (4 * j)
		}
		for m := h & (3 * slots); m != 0; m &= m - 1 {
			t := bits.TrailingZeros64(m)
			if i := p + 2*(t>>3) + t&1; anchorAt(s, i) {
				return i, true
			}
		}
		if !keyword && h&(keywordBit*slots) != 0 {
			keyword = len(ruleKeywords.scanTail(s, p, nil, true)) > 0
		}
	}
	return -1, keyword
}

// anchorAt reports whether the matcher of the anchor at i matches there.
// One that needs a word's start is not called after a byte of a word.
func anchorAt(s string, i int) bool {
	here := anchorHere[s[i]]
	return (i == 0 || here.word&keyBytes[s[i-1]] == 0) && here.at(s, i)
}

// slots has a 1 in the lowest bit of each byte of a word: times a bit of
// anchorPairs, that bit in each of the eight lookups of a block placed
// side by side.
const slots = 0x0101010101010101

// keywordBit is the bit of anchorPairs set for the pairs of bytes that
// may be part of a keyword of the rules.
const keywordBit = 4

// anchorPairs holds, for each two bytes read as a little-endian uint16,
// bit 0 when the first is an anchor and bit 1 when the second is: a
// lookup for two bytes costs what one for a byte does. The first byte's
// bit is dropped when the second is not among its next bytes, and the
// second's when the first is not among its prev bytes.
var anchorPairs = func() (t [1 << 16]uint8) {
	var one [256]uint8
	for _, a := range anchors {
		one[a.c] = 1
	}
	// Row by row, each a copy of one, for a start that costs little.
	for hi := range 256 {
		row := t[hi<<8 : hi<<8+256]
		copy(row, one[:])
		if one[hi] != 0 {
			for lo := range row {
				row[lo] |= 2
			}
		}
	}
	for pair, c := range ruleKeywords.pairs {
		if c != 0 {
			t[pair] |= keywordBit
		}
	}
	for _, a := range anchors {
		if a.next != "" {
			for hi := range 256 {
				if strings.IndexByte(a.next, byte(hi)) < 0 {
					t[hi<<8|int(a.c)] &^= 1
				}
			}
		}
		for lo := range 256 {
			if a.prev != "" && strings.IndexByte(a.prev, byte(lo)) < 0 || a.word && isKeyByte(byte(lo)) {
				t[int(a.c)<<8|lo] &^= 2
			}
		}
	}
	return t
}()

// anchorHere holds the matcher of each anchor, and nil for other bytes,
// with 1 in word for an anchor that needs a word's start.
var anchorHere = func() (t [256]struct {
	at   func(s string, p int) bool
	word uint8
}) {
	for _, a := range anchors {
		t[a.c].at = a.here
		if a.word {
			t[a.c].word = 1
		}
	}
	return t
}()

// keyBytes holds 1 for each byte isKeyByte reports.
var keyBytes = func() (t [256]uint8) {
	for c := range 256 {
		if isKeyByte(byte(c)) {
			t[c] = 1
		}
	}
	return t
}()

// colonSecretHere reports whether a sensitive pair's value or a webhook
// URL's secret path follows the ':' at p, or whether the ':' starts the
// "://" of a URL whose user information or path (endpointKeyAt) holds a
// secret or that a command takes keys after.
func colonSecretHere(s string, p int) bool {
	// Most colons, as in "**Note**:", follow no sensitive key and start
	// no "://": told without a call.
	if !mayFollowSensitiveKey(s, p) && (p+1 >= len(s) || s[p+1] != '/') {
		return false
	}
	if pairHere(s, p) {
		return true
	}
	if !strings.HasPrefix(s[p:], "://") {
		return false
	}
	if _, ok := webhookAt(s, p); ok {
		return true
	}
	// The URL's authority ends at the '@' of its user information
	// (userinfoAfter) or at the '/' of its path.
	at := runEnd(s, p+3, isUserinfoByte)
	if at < len(s) && s[at] == '@' && userinfoHere(s, at) {
		return true
	}
	if _, ok := endpointKeyIn(s, p+3, at); ok {
		return true
	}
	if !webURLAfterBlank(s, p) {
		return false
	}
	_, ok := urlKeySecretAt(s, p)
	return ok
}

// userinfoAfter reports whether urlSecretAt matches at the '@' that ends
// the user information after the "://" at p. The user information is
// made of bytes that are neither '/' nor '@', so the '@' that ends it is
// the one after the first run of its bytes, and that '@' walks back to p.
func userinfoAfter(s string, p int) bool {
	at := runEnd(s, p+3, isUserinfoByte)
	return at < len(s) && s[at] == '@' && userinfoHere(s, at)
}

// userinfoHere reports whether urlSecretAt matches at the '@' at p.
func userinfoHere(s string, p int) bool {
	_, ok := urlSecretAt(s, p)
	return ok
}

// sKeyHere reports whether sKeyAt matches at the 'S' at p. 'S' is
// common: it looks at the next byte and the room left before calling.
func sKeyHere(s string, p int) bool {
	if len(s)-p < 34 || s[p+1] != 'G' && s[p+1] != 'K' {
		return false
	}
	_, ok := sKeyAt(s, p)
	return ok
}

// rowValueHere reports whether rowValueAt matches at the ' ' at p.
func rowValueHere(s string, p int) bool {
	_, ok := rowValueAt(s, p)
	return ok
}

// callArgHere reports whether callSecretAt matches at the '(' at p.
func callArgHere(s string, p int) bool {
	_, ok := callSecretAt(s, p)
	return ok
}

// jwtHere reports whether jwtAt matches at the 'J' at p.
func jwtHere(s string, p int) bool {
	_, ok := jwtAt(s, p)
	return ok
}

// dashSecretHere reports whether flagSecretAt matches at the '-' at p,
// which must follow "sk", "xox" and a letter, "glpat", "----", "--" or a
// blank.
func dashSecretHere(s string, p int) bool {
	if p < 2 || !mayPrecedeDash[s[p-1]] {
		return false
	}
	if _, ok := dashSecretAt(s, p); ok {
		return true
	}
	_, ok := moreDashSecretAt(s, p)
	return ok
}

// dashPrev holds the bytes that come before the '-' of a secret:
// the last byte of "sk", of "xox" and a Slack token letter, of "glpat", of
// "-----BEGIN" or of the "--" of a long flag, or the blank before a short
// flag.
const dashPrev = "ktaberps- "

// mayPrecedeDash holds true for each byte of dashPrev.
var mayPrecedeDash = func() (t [256]bool) {
	for i := range len(dashPrev) {
		t[dashPrev[i]] = true
	}
	return t
}()

// underscorePrev holds the bytes that come before the '_' of a secret:
// the last byte of "gh" and a letter, of "github", "sk", "rk", "hf" or
// "npm".
const underscorePrev = "pousrbkfm"

// underscoreSecretHere reports whether underscoreSecretAt matches at the
// '_' at p, which must follow "gh" and a letter, "github", "sk", "rk",
// "hf" or "npm".
func underscoreSecretHere(s string, p int) bool {
	if p < 2 || s[p-2] != 'h' && s[p-1] != 'b' && s[p-1] != 'k' && s[p-1] != 'm' {
		return false
	}
	_, ok := underscoreSecretAt(s, p)
	return ok
}

// keyIDHere reports whether an AWS access key id or a Google API key,
// each at least 20 bytes long, starts at the 'A' at p. The third byte
// tells AKIA and ASIA from AIza.
func keyIDHere(s string, p int) bool {
	if len(s)-p < 20 {
		return false
	}
	var ok bool
	switch {
	case s[p+2] == 'I':
		_, ok = awsKeyAt(s, p)
	case s[p+1] == 'I':
		_, ok = googleKeyAt(s, p)
	}
	return ok
}

// bearerHere reports whether bearerAt matches at p, which needs room for
// "Bearer" and one byte more, and an 'e' (in any case) after its first.
func bearerHere(s string, p int) bool {
	if len(s)-p < len("Bearer")+1 || s[p+1]|0x20 != 'e' {
		return false
	}
	_, ok := bearerAt(s, p)
	return ok
}

// pairHere reports whether pairAt matches at the separator at p, which
// must follow a sensitive key. The last bytes of the key tell most keys
// from a sensitive one, with no call: in JSON every key is followed by a
// ':'.
func pairHere(s string, p int) bool {
	if !mayFollowSensitiveKey(s, p) {
		return false
	}
	if k, _ := keyEnd(s, p); !sensitiveKeyEnd(s, k) && !entryKeyEnd(s, k) {
		return false
	}
	_, ok := pairAt(s, p)
	return ok
}

// mayFollowSensitiveKey reports false when keyEnd and sensitiveKeyEnd
// would find no sensitive key ending before the separator at p, from the
// last two bytes of a key written plainly or after a quote; a byte keyEnd
// walks back over, or too short a text, leaves the answer to them (true).
func mayFollowSensitiveKey(s string, p int) bool {
	j := p - 1
	if j > 0 && (s[j] == '"' || s[j] == '\'') {
		j--
	}
	if j < 2 {
		return true
	}
	last, pen := s[j], s[j-1]
	t := keyTails[last]
	// The two letters end a suffix: the one before them tells most keys
	// that end like one, as "Score" does, from it.
	return t&keyWalk != 0 || t&letterBits[pen] != 0 && antepenultimates[last&31][pen&31]&letterBits[s[j-2]] != 0
}

// antepenultimates holds, by the last two letters of the sensitive key
// suffixes, a bit for each letter one of them has before them.
// They are indexed by each letter's low five bits, the same in either
// case.
var antepenultimates = func() (t [32][32]uint32) {
	for _, sufs := range sensitiveKeySuffixes {
		for _, suf := range sufs {
			w := suf.suf
			t[w[len(w)-1]&31][w[len(w)-2]&31] |= 1 << (w[len(w)-3] - 'a')
		}
	}
	t['e'&31]['u'&31] |= 1 << ('l' - 'a') // valueKey
	t['r'&31]['e'&31] |= 1 << ('s' - 'a') // userKey
	for _, w := range foreignKeyWords {
		if last, pen := w[len(w)-1], w[len(w)-2]; last < utf8.RuneSelf && pen >= utf8.RuneSelf {
			t[last&31][pen&31] |= nonASCIIBit
		}
	}
	return t
}()

// nonASCIIBit is the bit of letterBits for the bytes of letters outside
// ASCII, and of keyTails and antepenultimates for a key word of
// foreignKeyWords that ends in an ASCII letter after one of them, as
// "contraseña" does.
const nonASCIIBit = 1 << 26

// keyTails holds, for each byte that ends a sensitive key suffix (in any
// case), the letters that may come before it there (the bits of
// penultimates), and keyWalk for each byte keyEnd walks back over. Other
// bytes hold 0.
var keyTails = func() (t [256]uint32) {
	for c := range 256 {
		if l := lower(byte(c)); l >= 'a' && l <= 'y' {
			t[c] = penultimates[l-'a']
		}
	}
	for _, c := range []byte{' ', ':', '"', '\'', '\\', ']'} {
		t[c] = keyWalk
	}
	for c := utf8.RuneSelf; c < len(t); c++ {
		t[c] = keyWalk // the last byte of a letter outside ASCII
	}
	for _, w := range foreignKeyWords {
		if last := w[len(w)-1]; last < utf8.RuneSelf && w[len(w)-2] >= utf8.RuneSelf {
			t[last] |= nonASCIIBit
			t[last-'a'+'A'] |= nonASCIIBit
		}
	}
	return t
}()

// keyWalk is the bit of keyTails for the bytes keyEnd walks back over; no
// letter has it.
const keyWalk = 1 << 31

// letterBits holds bit c-'a' for each ASCII letter c, in any case,
// nonASCIIBit for the bytes outside ASCII, and 0 for other bytes.
var letterBits = func() (t [256]uint32) {
	for c := range 256 {
		if l := lower(byte(c)); l >= 'a' && l <= 'z' {
			t[c] = 1 << (l - 'a')
		}
		if c >= utf8.RuneSelf {
			t[c] = nonASCIIBit
		}
	}
	return t
}()

// replaceSpans replaces each span of s with Redacted, except a
// placeholder (placeholderSpan), however it was found.
func replaceSpans(s string, spans []span) string {
	spans = slices.DeleteFunc(spans, func(m span) bool { return placeholderSpan(s[m.start:m.end]) })
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		// Overlapping or touching matches collapse into one marker.
		for i++; i < len(spans) && spans[i].start <= end; i++ {
			end = max(end, spans[i].end)
		}
		b.WriteString(s[at:start])
		b.WriteString(Redacted)
		at = end
	}
	b.WriteString(s[at:])
	return b.String()
}

// placeholderSpan reports whether v stands in for a secret: it holds a
// run of six x, in either case, or ends in six zeros, as
// sk_test_xxxxxxxx and sk-example-000000000000 do (a key in hexadecimal
// may hold zeros anywhere else), or it is one token that says it is made
// up (madeUpWords, in lower case as tests write them), as
// test-token-not-real does.
func placeholderSpan(v string) bool {
	if strings.Contains(v, "xxxxxx") || strings.Contains(v, "XXXXXX") || strings.HasSuffix(v, "000000") {
		return true
	}
	if strings.ContainsAny(v, " \t\n./:@") {
		return false
	}
	for _, w := range madeUpWords {
		if strings.Contains(v, w) {
			return true
		}
	}
	return false
}

// madeUpWords are the words, in lower case, with which tests and docs
// mark a value as made up. A random token holds none of them by chance.
var madeUpWords = [...]string{"fake", "dummy", "example", "not-real", "not_real"}
