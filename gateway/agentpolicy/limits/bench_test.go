package limits

import (
	"context"
	"strconv"
	"testing"
)

func BenchmarkCheck(b *testing.B) {
	p := Default
	p.Rate, p.Burst, p.Daily = 1<<30, 1<<30, 1<<30 // measure the work, not refusals
	l := New(NewMemory(nil), p)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		if _, err := l.Check(ctx, "acct"+strconv.Itoa(i%1000), []Call{{Fingerprint: strconv.Itoa(i), Cost: 1}}); err != nil {
			b.Fatal(err)
		}
	}
}
