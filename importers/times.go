package importers

import "time"

// Time conversions shared by the importers.

func unixRFC3339(sec float64) string {
	whole := int64(sec)
	return time.Unix(whole, int64((sec-float64(whole))*1e9)).UTC().Format(time.RFC3339Nano)
}

// genTime renders unix nanoseconds as RFC 3339 UTC.
func genTime(ns int64) string {
	if ns <= 0 {
		return ""
	}
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

// genParseTime reads an RFC 3339 time or a time without zone (taken as
// UTC) and returns unix nanoseconds; 0 when it cannot.
func genParseTime(s string) int64 {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixNano()
		}
	}
	return 0
}
