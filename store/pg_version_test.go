package store

import (
	"strings"
	"testing"
)

func TestSupportedServer(t *testing.T) {
	for _, tc := range []struct {
		version string
		refused bool
	}{
		{"15.4 (Debian 15.4-2.pgdg120+1)", false},
		{"12.0", false},
		{"16beta1", false},
		{"17devel", false},
		{"11.22 (Debian 11.22-1)", true},
		{"9.6.24", true},
		{"", false},
		{"EnterpriseDB 15", false},
	} {
		err := supportedServer(tc.version)
		if (err != nil) != tc.refused {
			t.Errorf("supportedServer(%q) = %v, want refused %v", tc.version, err, tc.refused)
		}
		if err != nil && (!strings.Contains(err.Error(), tc.version) || !strings.Contains(err.Error(), "12 or newer")) {
			t.Errorf("supportedServer(%q): %q does not name the version and what is needed", tc.version, err)
		}
	}
}
