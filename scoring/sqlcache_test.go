package scoring

import (
	"fmt"
	"reflect"
	"testing"
)

// The cache keeps an analysis only once its text comes again, and gives
// the same analysis either way: statements that never repeat leave it
// empty instead of full of analyses nobody asks for.
func TestSQLCacheKeepsWhatRepeats(t *testing.T) {
	c := newSQLCache(8)
	idx := indexSchema(nil)
	for i := 0; i < 100; i++ {
		c.analyze(fmt.Sprintf("SELECT a FROM t WHERE b = %d", i), idx)
	}
	if len(c.m) != 0 {
		t.Fatalf("%d analyses kept of 100 statements seen once", len(c.m))
	}
	q := "SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.region = 'EU'"
	first := c.analyze(q, idx)
	second := c.analyze(q, idx)
	if len(c.m) != 1 {
		t.Fatalf("%d analyses kept after a statement came twice, want 1", len(c.m))
	}
	if third := c.analyze(q, idx); third != second || !reflect.DeepEqual(first, second) {
		t.Fatal("the kept analysis is not the one analyzed, or differs from the first")
	}
}
