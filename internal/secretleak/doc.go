// Package secretleak holds a test, and nothing else: that no secret of
// the secrets corpus (internal/secretcorpus) that an agent meets leaves
// the process, in the JSON Lines trajectory, its ATIF, OpenAI and OTLP
// exports, the live OTLP spans, the HTML report, a replay cassette or the
// requests of a prompt summary.
package secretleak
