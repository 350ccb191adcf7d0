// Package detect holds small helpers the built-in detectors share for
// validating their settings and building assessments.
package detect
