package scoring

import (
	"reflect"
	"testing"
)

func TestParseDefinition(t *testing.T) {
	tests := []struct {
		text  string
		term  string
		preds []Predicate
		err   bool
	}{
		// The seed's gold definition (seeds/000, case schema example).
		{text: "active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter",
			term: "active", preds: []Predicate{{"subscription_status", "in", []string{"ACTIVE", "PAUSED_BILLING"}}}},
		// The seed's Server B tool description.
		{text: "active means subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the period.",
			term: "active", preds: []Predicate{{"subscription_status", "in", []string{"ACTIVE", "PAUSED_BILLING"}}}},
		{text: "churned: status = 'CHURNED' and cancelled_at is not null within the quarter",
			term: "churned", preds: []Predicate{{"status", "=", []string{"CHURNED"}}, {"cancelled_at", "is not null", nil}}},
		{text: "status = 'ACTIVE'", preds: []Predicate{{"status", "=", []string{"ACTIVE"}}}},
		{text: "enterprise account is defined as customers.segment not in ('SMB', 'MID') and arr >= 100000",
			term: "enterprise account", preds: []Predicate{
				{"customers.segment", "not in", []string{"SMB", "MID"}}, {"arr", ">=", []string{"100000"}}}},
		{text: "paid = amount > 0 and status <> 'void' and refunded_at is null",
			term: "paid", preds: []Predicate{{"amount", ">", []string{"0"}}, {"status", "<>", []string{"void"}}, {"refunded_at", "is null", nil}}},
		{text: "eu = region like 'EU%'", term: "eu", preds: []Predicate{{"region", "like", []string{"EU%"}}}},
		{text: "q1 = order_date between '2026-01-01' and '2026-03-31' in the fiscal calendar",
			term: "q1", preds: []Predicate{{"order_date", "between", []string{"2026-01-01", "2026-03-31"}}}},
		{text: "active = status in (ACTIVE, PAUSED BILLING)", term: "active",
			preds: []Predicate{{"status", "in", []string{"ACTIVE", "PAUSED BILLING"}}}},
		// An OR of equalities on one column is an IN list; across columns it is unsupported.
		{text: "active = status = ACTIVE or status = TRIAL", term: "active",
			preds: []Predicate{{"status", "in", []string{"ACTIVE", "TRIAL"}}}},
		{text: "active = status = ACTIVE or plan = TRIAL", err: true},
		// Hyphenated words stay one word, in the term and in a bare value.
		{text: "mid-market customer = segment in (mid-market, SMB-plus)", term: "mid-market customer",
			preds: []Predicate{{"segment", "in", []string{"mid-market", "SMB-plus"}}}},
		{text: "segment = mid-market", preds: []Predicate{{"segment", "=", []string{"mid-market"}}}},
		{text: "revenue = sum(amount) over the fiscal quarter", err: true},
		{text: "a customer we like", err: true},
		{text: "", err: true},
	}
	for _, tc := range tests {
		term, preds, err := ParseDefinition(tc.text)
		if tc.err {
			if err == nil {
				t.Errorf("ParseDefinition(%q) = %q %v, want an error", tc.text, term, preds)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseDefinition(%q): %v", tc.text, err)
			continue
		}
		if term != tc.term || !reflect.DeepEqual(preds, tc.preds) {
			t.Errorf("ParseDefinition(%q)\n got %q %v\nwant %q %v", tc.text, term, preds, tc.term, tc.preds)
		}
	}
}

func TestPredicateEquivalent(t *testing.T) {
	def := Predicate{"subscription_status", "in", []string{"ACTIVE", "PAUSED_BILLING"}}
	tests := []struct {
		name string
		def  Predicate
		got  Predicate
		want bool
	}{
		{"same set other order, other case", def, Predicate{"subscriptions.subscription_status", "in", []string{"paused_billing", "active"}}, true},
		{"subset is not equivalent", def, Predicate{"subscriptions.subscription_status", "in", []string{"ACTIVE"}}, false},
		{"look-alike column", def, Predicate{"customers.is_active", "=", []string{"true"}}, false},
		{"= is a one-element in", Predicate{"status", "=", []string{"A"}}, Predicate{"t.status", "in", []string{"a"}}, true},
		{"in of one is =", Predicate{"status", "in", []string{"A"}}, Predicate{"t.status", "=", []string{"A"}}, true},
		{"<> is not in", Predicate{"status", "<>", []string{"A"}}, Predicate{"t.status", "not in", []string{"A"}}, true},
		{"in vs not in", def, Predicate{"s.subscription_status", "not in", []string{"ACTIVE", "PAUSED_BILLING"}}, false},
		{"qualified def needs the same table", Predicate{"customers.region", "=", []string{"EU"}}, Predicate{"orders.region", "=", []string{"EU"}}, false},
		{"qualified def same table", Predicate{"customers.region", "=", []string{"EU"}}, Predicate{"Customers.Region", "=", []string{"eu"}}, true},
		{"comparison values", Predicate{"amount", ">", []string{"0"}}, Predicate{"o.amount", ">", []string{"0"}}, true},
		{"comparison differs", Predicate{"amount", ">", []string{"0"}}, Predicate{"o.amount", ">=", []string{"0"}}, false},
		{"between ordered", Predicate{"d", "between", []string{"1", "2"}}, Predicate{"t.d", "between", []string{"1", "2"}}, true},
		{"is null", Predicate{"x", "is null", nil}, Predicate{"t.x", "is null", nil}, true},
		{"other never matches", Predicate{"x", "other", nil}, Predicate{"t.x", "other", nil}, false},
		{"ambiguous field matches by column", Predicate{"status", "=", []string{"A"}}, Predicate{"?.status", "=", []string{"A"}}, true},
		{"empty field", Predicate{"status", "=", []string{"A"}}, Predicate{"", "=", []string{"A"}}, false},
	}
	for _, tc := range tests {
		if got := PredicateEquivalent(tc.def, tc.got); got != tc.want {
			t.Errorf("%s: PredicateEquivalent(%v, %v) = %v, want %v", tc.name, tc.def, tc.got, got, tc.want)
		}
	}
}

// The seed's two servers, end to end: the definition parsed from gold text
// against the WHERE clauses each server's SQL applied.
func TestDefinitionAppliedSeedServers(t *testing.T) {
	_, def, err := ParseDefinition("active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter")
	if err != nil {
		t.Fatal(err)
	}
	serverA := AnalyzeSQL(`SELECT count(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%' AND created_at >= '2026-04-01'`, shopSchema)
	serverB := AnalyzeSQL(`SELECT count(DISTINCT c.id) FROM customers c JOIN subscriptions s ON s.customer_id = c.id
		WHERE s.subscription_status IN ('PAUSED_BILLING', 'ACTIVE') AND c.sales_region = 'EMEA'
		AND s.period_start <= '2026-06-30' AND s.period_end >= '2026-04-01'`, shopSchema)
	if DefinitionApplied(def, serverA.Where) {
		t.Errorf("server A applies the definition? where = %v", serverA.Where)
	}
	if !DefinitionApplied(def, serverB.Where) {
		t.Errorf("server B does not apply the definition? where = %v", serverB.Where)
	}
}

func TestParseDefinitionFindsAPredicateAfterAMeasure(t *testing.T) {
	tests := []struct{ text, term, field, op, val string }{
		{"bookings = SUM(amount_usd) of opportunities with stage = closed_won, by closed_at", "bookings", "stage", "=", "closed_won"},
		{"churned = customers where cancelled_at is not null", "churned", "cancelled_at", "is not null", ""},
		// A parenthesis that glosses a word, its IN list unparenthesised.
		{"closing this month = open opportunity (stage not in closed_won, closed_lost) with close_date in the calendar month", "closing this month", "stage", "not in", ""},
		{"won = deal (stage = closed_won)", "won", "stage", "=", "closed_won"},
	}
	for _, tt := range tests {
		term, preds, err := ParseDefinition(tt.text)
		if err != nil || term != tt.term || len(preds) != 1 || preds[0].Field != tt.field || preds[0].Op != tt.op {
			t.Errorf("%q: term %q preds %+v err %v", tt.text, term, preds, err)
			continue
		}
		if tt.val != "" && (len(preds[0].Values) != 1 || preds[0].Values[0] != tt.val) {
			t.Errorf("%q: values %v", tt.text, preds[0].Values)
		}
	}
	// Prose with no condition has no predicate (a measure is read by
	// parseMeasure), and a parenthesis of prose is none either.
	for _, text := range []string{"revenue = SUM(orders.total) of closed orders by closed_at, at order grain (one row per order)",
		"at risk = open deal with risk_flag set (close date slipped, stage stalled, or no activity for 14 days)"} {
		if _, _, err := ParseDefinition(text); err == nil {
			t.Errorf("%q: a definition without a predicate parsed", text)
		}
	}
}

// The equivalences, from definition text and real SQL: both sides
// go through the parser and the normalizer.
func TestMatchDefinitionNormalForm(t *testing.T) {
	const (
		match = iota
		mismatch
		undecided
	)
	tests := []struct {
		name, def, where string
		want             int
	}{
		{"OR of equalities is an IN list", "active = subscription_status in (ACTIVE, PAUSED_BILLING)",
			"subscription_status = 'ACTIVE' OR subscription_status = 'PAUSED_BILLING'", match},
		{"OR in the definition, IN in the query", "active = subscription_status = ACTIVE or subscription_status = PAUSED_BILLING",
			"subscription_status IN ('PAUSED_BILLING','ACTIVE')", match},
		{"IN lists are sets, constants case-insensitive", "active = subscription_status in (ACTIVE, PAUSED_BILLING)",
			"subscription_status IN ('paused_billing','active','ACTIVE')", match},
		{"a dropped IN value does not match", "active = subscription_status in (ACTIVE, PAUSED_BILLING)",
			"subscription_status IN ('ACTIVE')", mismatch},
		{"an extra IN value does not match", "active = subscription_status in (ACTIVE, PAUSED_BILLING)",
			"subscription_status IN ('ACTIVE','PAUSED_BILLING','TRIAL')", mismatch},
		{"BETWEEN is >= and <=, any order", "q2 = period_start between '2026-04-01' and '2026-06-30'",
			"period_start <= '2026-06-30' AND sales_region = 'EMEA' AND period_start >= '2026-04-01'", match},
		{">= and <= in the definition, BETWEEN in the query", "q2 = period_start >= '2026-04-01' and period_start <= '2026-06-30'",
			"period_start BETWEEN '2026-04-01' AND '2026-06-30'", match},
		{"half a BETWEEN does not match", "q2 = period_start between '2026-04-01' and '2026-06-30'",
			"period_start >= '2026-04-01'", mismatch},
		{"a no-op cast is looked through", "q2 = period_start >= '2026-04-01'",
			"period_start::date >= DATE '2026-04-01'", match},
		{"CAST(x AS DATE) is looked through", "q2 = period_start >= '2026-04-01'",
			"CAST(period_start AS DATE) >= '2026-04-01'", match},
		{"conjunct order does not matter", "paid = status <> 'void' and amount_cents > 0",
			"amount_cents > 0 AND status <> 'VOID'", match},
		{"NOT (x IN ...) is x NOT IN", "open = status not in (closed, merged)",
			"NOT (status IN ('merged', 'closed'))", match},
		{"NOT of an OR of equalities is NOT IN", "open = status not in (closed, merged)",
			"NOT (status = 'closed' OR status = 'merged')", match},
		{"a look-alike column is a mismatch", "active = subscription_status in (ACTIVE, PAUSED_BILLING)",
			"is_active = true", mismatch},
		{"a function of the column is undecidable", "active = subscription_status in (ACTIVE, PAUSED_BILLING)",
			"upper(subscription_status) IN ('ACTIVE','PAUSED_BILLING')", undecided},
		{"an OR across columns is undecidable", "active = subscription_status in (ACTIVE, PAUSED_BILLING)",
			"(subscription_status = 'ACTIVE' OR is_active)", undecided},
		{"IN over a subquery is undecidable", "active = subscription_status in (ACTIVE, PAUSED_BILLING)",
			"subscription_status IN (SELECT s FROM allowed)", undecided},
	}
	schema := Schema{"subscriptions": {"subscription_status", "is_active", "period_start", "sales_region", "status", "amount_cents"}}
	for _, tc := range tests {
		_, def, err := ParseDefinition(tc.def)
		if err != nil {
			t.Errorf("%s: ParseDefinition: %v", tc.name, err)
			continue
		}
		a := AnalyzeSQL("SELECT 1 FROM subscriptions WHERE "+tc.where, schema)
		if a.Err != "" {
			t.Errorf("%s: %s", tc.name, a.Err)
			continue
		}
		ok, unsure := MatchDefinition(def, a.Where)
		got := mismatch
		switch {
		case ok:
			got = match
		case unsure:
			got = undecided
		}
		if got != tc.want {
			t.Errorf("%s: got %d, want %d (0 match, 1 mismatch, 2 undecided)\n def %v\n where %v", tc.name, got, tc.want, def, a.Where)
		}
	}
}
