// Package cireport writes what tracelab's gates print for people and CI:
// JUnit XML, GitHub Actions workflow commands, markdown tables, plain
// text, and numbers that may have no value. check, drift and report diff
// share it, so every output escapes untrusted text and shows a missing
// number the same way. It does no I/O of its own and holds no styles
// (colors belong to themes/).
package cireport
