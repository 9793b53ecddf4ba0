// Package agreement computes how far raters agree on labels and writes
// the result for people and programs. A rater is a person, a judge
// command or tracelab's own suggestion; all are treated alike, so the
// machine's trust figure is the same arithmetic as two people agreeing.
//
// Nominal covers one categorical field (failure class, correct,
// grounded): percent agreement, Cohen's kappa and a confusion matrix per
// rater pair, and Fleiss' kappa and Krippendorff's alpha across all
// raters. Sets covers set-valued fields (required and forbidden fields)
// with mean Jaccard agreement per pair. MachineTrust says, per class the
// machine suggested, how often a person agreed with it.
//
// Every statistic is a Stat that knows whether it is defined: kappa is
// 0/0 when chance agreement is already certain, and that is reported as
// undefined (null in JSON, a dash in text), never as NaN.
//
// The package is pure: no store, no clock, no I/O besides the io.Writer
// the report is written to.
package agreement
