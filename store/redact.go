package store

import (
	"net/url"
	"regexp"
	"strings"
)

// masked replaces a password in every message.
const masked = "xxxxx"

// RedactDSN is a PostgreSQL connection string without its password,
// wherever it sits: the URL's userinfo (percent-encoded or not), a
// password or sslpassword query parameter, or a key=value DSN's
// password=…. Anything else is kept as written.
func RedactDSN(dsn string) string {
	if !IsPostgres(dsn) {
		return redactKeyValues(dsn)
	}
	return redactURL(dsn)
}

// redactURL masks the password of a postgres:// URL. The userinfo ends at
// the last '@' before the path (a password may hold '@', ':' or '/'
// unencoded, as libpq's parser allows), and query parameters are
// matched by their decoded name.
func redactURL(dsn string) string {
	scheme, rest, _ := strings.Cut(dsn, "://")
	end := len(rest)
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		end = i
	}
	auth := rest[:end]
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		if colon := strings.Index(auth[:at], ":"); colon >= 0 {
			rest = auth[:colon+1] + masked + rest[at:]
		}
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return scheme + "://" + rest
	}
	query, frag, hasFrag := strings.Cut(rest[q+1:], "#")
	parts := strings.Split(query, "&")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if dec, err := url.QueryUnescape(name); err == nil {
			name = dec
		}
		if ok && isPasswordKey(name) {
			parts[i] = p[:strings.IndexByte(p, '=')+1] + masked
		}
	}
	out := scheme + "://" + rest[:q+1] + strings.Join(parts, "&")
	if hasFrag {
		out += "#" + frag
	}
	return out
}

func isPasswordKey(name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	return name == "password" || name == "sslpassword"
}

// keyValuePassword is password=… in a libpq key=value DSN: a quoted value
// (with backslash escapes) or a run of non-space characters.
// An unquoted value ends at white space or at a double quote that closes
// the message's quoting of the whole DSN (%q escapes the ones inside).
var keyValuePassword = regexp.MustCompile(`(?i)\b((?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|(?:\\.|[^\s"\\])+)`)

func redactKeyValues(s string) string {
	return keyValuePassword.ReplaceAllString(s, "${1}"+masked)
}

// postgresURL finds the PostgreSQL URLs in a message: up to white space or
// a quote that closes it.
var postgresURL = regexp.MustCompile(`postgres(?:ql)?://[^\s"'<>` + "`" + `]*`)

// RedactSecrets masks every PostgreSQL password in a message: each
// postgres:// URL (RedactDSN) and each password=… of a key=value DSN.
// Front ends pass every error through it before printing, so a password
// that reached a message by any path is still not shown.
func RedactSecrets(msg string) string {
	if !strings.Contains(strings.ToLower(msg), "password") && !strings.Contains(msg, "postgres") {
		return msg
	}
	var b strings.Builder
	at := 0
	for _, loc := range postgresURL.FindAllStringIndex(msg, -1) {
		// "open postgres://…/tl: failed": the colon ends the sentence,
		// not the URL.
		for loc[1] > loc[0] && strings.ContainsRune(".,;:)]", rune(msg[loc[1]-1])) {
			loc[1]--
		}
		b.WriteString(redactKeyValues(msg[at:loc[0]]))
		b.WriteString(redactURL(msg[loc[0]:loc[1]]))
		at = loc[1]
	}
	b.WriteString(redactKeyValues(msg[at:]))
	return b.String()
}
