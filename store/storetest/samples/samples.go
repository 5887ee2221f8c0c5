// Package samples runs the real importers over the register samples for the stores' tests. It
// is apart from storetest because the importers' own tests import storetest.
package samples

import (
	"context"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/bag"
	"github.com/adreswijzer/adreswijzer/store/best"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// BAGWeesp imports the Kadaster extract of Weesp, BAGGEM0457L-15102021.zip.
func BAGWeesp(t testing.TB) storetest.Importer {
	t.Helper()
	files := []string{storetest.File(t, "nl", "BAGGEM0457L-15102021.zip")}
	return func(ctx context.Context, add func(adreswijzer.Address) error) (adreswijzer.DatasetVersion, int64, error) {
		res, err := bag.Import(ctx, files, add, bag.Options{})
		return res.Version, res.Kept, err
	}
}

// BeSTSample imports the BeST sample in BOSA's load layout (Haren, Lembeek, Malmedy).
func BeSTSample(t testing.TB) storetest.Importer {
	t.Helper()
	var files []string
	for _, f := range []string{"addresses_part.csv", "streets_part.csv", "municipalities.csv", "municipalityparts.csv", "postals.csv"} {
		files = append(files, storetest.File(t, "be", f))
	}
	return func(ctx context.Context, add func(adreswijzer.Address) error) (adreswijzer.DatasetVersion, int64, error) {
		res, err := best.Import(ctx, files, add, best.Options{})
		return res.Version, res.Kept, err
	}
}
