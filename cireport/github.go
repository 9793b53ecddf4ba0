package cireport

import (
	"fmt"
	"strings"
)

// GitHub Actions workflow commands ("Workflow commands for GitHub Actions"):
// the message ends at the line, so %, CR and LF are escaped; a property
// value also ends at : and , so those are escaped too.
var (
	ghMessage  = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// GitHubMessage escapes the message of a workflow command.
func GitHubMessage(s string) string { return ghMessage.Replace(s) }

// GitHubProperty escapes a property value (file=, title=) of a workflow command.
func GitHubProperty(s string) string { return ghProperty.Replace(s) }

// Annotation is one workflow command line: level is error, warning or
// notice; file may be empty. Untrusted text is made printable first.
func Annotation(level, file, title, msg string) string {
	props := "title=" + GitHubProperty(Printable(title))
	if file != "" {
		props = "file=" + GitHubProperty(Printable(file)) + "," + props
	}
	return fmt.Sprintf("::%s %s::%s\n", level, props, GitHubMessage(Printable(msg)))
}
