// Package secretcorpus holds the corpus the built-in secrets redactor
// (recorder.Secrets) is measured against: texts that hold secrets, in the
// shapes providers document and in the places programs print them, and
// texts that only look like secrets. Every value is drawn at load time
// from a fixed seed, so the corpus holds no credential.
package secretcorpus
