package mcpserver

import (
	"fmt"
	"testing"
)

// The agent interface's costs over HTTP with the SDK's client, for `make bench`: one
// verify_address (free-form, country detected), one lookup, and a batch of 100 addresses.

func BenchmarkVerifyTool(b *testing.B) {
	cs := connect(b, serve(b, sampleData(b), Options{}), "2026-07-28")
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"nl", map[string]any{"address": "Achtergracht 1, 1381 BK Weesp"}},
		{"be", map[string]any{"address": "Rue du Pré aux Oies 134 bte 1, 1130 Bruxelles"}},
		{"country-ambiguous", map[string]any{"address": "Kerkstraat 1, 2000"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if res := call(b, cs, ToolVerify, c.args, nil); res.IsError {
					b.Fatal(errorText(b, res))
				}
			}
		})
	}
}

func BenchmarkLookupTool(b *testing.B) {
	cs := connect(b, serve(b, sampleData(b), Options{}), "2026-07-28")
	args := map[string]any{"country": "BE", "postcode": "1502", "street": "Stevens-de Waelplein", "houseNumber": 9}
	for b.Loop() {
		call(b, cs, ToolLookup, args, nil)
	}
}

func BenchmarkBatch100(b *testing.B) {
	cs := connect(b, serve(b, sampleData(b), Options{}), "2026-07-28")
	items := make([]any, 100)
	for i := range items {
		if i%2 == 0 {
			items[i] = map[string]any{"id": fmt.Sprint(i), "address": fmt.Sprintf("Hugo de Grootlaan %d, 1381 CS Weesp", i/2+1)}
		} else {
			items[i] = map[string]any{"id": fmt.Sprint(i), "address": "Stevens-de Waelplein 9 bus 2, 1502 Lembeek"}
		}
	}
	args := map[string]any{"addresses": items}
	for b.Loop() {
		if res := call(b, cs, ToolBatch, args, nil); res.IsError {
			b.Fatal(errorText(b, res))
		}
	}
}
