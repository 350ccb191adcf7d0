// Package scan holds the byte-level work the built-in observers share:
// canonicalizing JSON arguments, applying normalization rules, finding
// the targets arguments name, and writing evidence lines. It is no part of
// the framework: observers written outside this module do without it.
package scan
