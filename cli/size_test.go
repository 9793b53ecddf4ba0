package cli

import "testing"

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"64MiB", 64 << 20, false},
		{"200MB", 200e6, false},
		{"1GiB", 1 << 30, false},
		{"512k", 512 << 10, false},
		{" 1048576 ", 1 << 20, false},
		{"10 mib", 10 << 20, false},
		{"0", 0, true},
		{"-5MB", 0, true},
		{"lots", 0, true},
		{"9999999999GiB", 0, true},
	}
	for _, tt := range tests {
		got, err := parseByteSize(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d, bad %v", tt.in, got, err, tt.want, tt.bad)
		}
	}
}
