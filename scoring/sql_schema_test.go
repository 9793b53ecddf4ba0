package scoring

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseSchema(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		want     Schema
		errLine  int
		errWords string
	}{
		{name: "json", file: "schema.json", want: Schema{
			"customers": {"id", "subscription_status", "sales_region"}, "subscriptions": {"customer_id", "period_start", "period_end"}}},
		{name: "postgres ddl", file: "schema_pg.sql", want: Schema{
			"customers": {"id", "name", "sales_region"}, "orders": {"id", "customer_id", "amount_cents"}}},
		{name: "sqlite ddl with untyped columns and backticks", file: "schema_sqlite.sql", want: Schema{
			"drives": {"year", "driver_id", "drive_id", "is_first_drive"}, "frpm": {"cdscode", "school name", "enrollment (k-12)"}}},
		{name: "json syntax error names the line", file: "bad_syntax.json", errLine: 3},
		{name: "json wrong shape names the line", file: "bad_shape.json", errLine: 2},
		{name: "ddl without create table", file: "bad_ddl.sql", errLine: 2},
		{name: "unclosed create table", file: "bad_unclosed.sql", errLine: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "sql", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseSchema(data)
			if tc.errLine > 0 {
				var se *SchemaError
				if !errors.As(err, &se) || se.Line != tc.errLine {
					t.Fatalf("got %v (%#v), want a SchemaError on line %d", err, err, tc.errLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
		})
	}
}
