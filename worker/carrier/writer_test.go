package carrier

import (
	"reflect"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// A Writer shares text and lists among the addresses of an answer; every address must still
// get what Fields and Lines give it alone, and nothing written for one address may change
// what an earlier one got.
func TestWriterAgreesWithFieldsAndLines(t *testing.T) {
	rows := append(storetest.WeespAddresses(), storetest.BeSTAddresses()...)
	rows = append(rows, goldenAddresses...)
	type written struct {
		fields adreswijzer.CarrierAddress
		lines  []string
	}
	for _, c := range append(carriers, "") {
		for _, lang := range langs {
			var w Writer
			w.Expect(len(rows) / 2) // and then more than expected
			got := make([]written, len(rows))
			for i := range rows {
				got[i] = written{w.Fields(&rows[i], c, lang), w.Lines(&rows[i], lang)}
				if !reflect.DeepEqual(got[i].fields, Fields(&rows[i], c, lang)) || !reflect.DeepEqual(got[i].lines, Lines(&rows[i], lang)) {
					t.Fatalf("%s %s %s: writer gives %+v, alone %+v %q", c, lang, rows[i].ID, got[i], Fields(&rows[i], c, lang), Lines(&rows[i], lang))
				}
			}
			for i := range rows {
				if !reflect.DeepEqual(got[i], written{Fields(&rows[i], c, lang), Lines(&rows[i], lang)}) {
					t.Fatalf("%s %s %s: changed by later addresses to %+v", c, lang, rows[i].ID, got[i])
				}
			}
			if l := got[0].lines; len(l) != cap(l) {
				t.Fatalf("lines %q have room to append into the next address's", l)
			}
		}
	}
}
