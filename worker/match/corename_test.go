package match

import (
	"context"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// TestCoreOffset reads the cores of real BAG street names of Weesp (and a few national ones)
// and of names as people type them.
func TestCoreOffset(t *testing.T) {
	for _, tt := range []struct{ name, core string }{
		{"Mr.J.C.Bührmannlaan", "buhrmannlaan"},
		{"Mr.P.J.Troelstralaan", "troelstralaan"},
		{"Dr.A.Kuyperlaan", "kuyperlaan"},
		{"Dr.J.Th.de Visserlaan", "de visserlaan"},
		{"Mgr.Dr.W.H.Nolenslaan", "nolenslaan"},
		{"Ds.J.P.Tazelaarlaan", "tazelaarlaan"},
		{"E.du Perronstraat", "du perronstraat"},
		{"C.van Drosthagenstraat", "van drosthagenstraat"},
		{"H.Marsmanstraat", "marsmanstraat"},
		{"Dr.Schaepmanstraat", "schaepmanstraat"},
		{"Mr. Bührmannlaan", "buhrmannlaan"},
		{"J C Buhrmannlaan", "buhrmannlaan"},
		{"Koningin Wilhelminalaan", "wilhelminalaan"},
		// No titles or initials, or nothing left without them.
		{"Hugo de Grootlaan", ""},
		{"Bührmannlaan", ""},
		{"Sint Annastraat", ""},
		{"St. Annastraat", ""},
		{"O.L. Vrouwestraat", ""},
		{"'s-Gravelandseweg", ""},
		{"d'Hannetairestraat", ""},
		{"Jan Boutsteeg", ""},
		{"De Grote Weer", ""},
		{"Dr. Laan", ""},
		{"Mr. Bos", ""},
		{"Mr.", ""},
		{"", ""},
	} {
		f := fold(tt.name)
		if got := coreOf(f, coreOffset(tt.name)); got != tt.core {
			t.Errorf("core of %q = %q, want %q", tt.name, got, tt.core)
		}
	}
}

// TestMatchCore holds typed names against real register names: the core level is reached
// by the core alone, as written or abbreviated, and by nothing less.
func TestMatchCore(t *testing.T) {
	for _, tt := range []struct {
		typed, register string
		want            level
	}{
		{"Bührmannlaan", "Mr.J.C.Bührmannlaan", levelCore},
		{"buhrmannlaan", "Mr.J.C.Bührmannlaan", levelCore},
		{"J.C. Bührmannlaan", "Mr.J.C.Bührmannlaan", levelCore},
		{"Troelstraln", "Mr.P.J.Troelstralaan", levelCore},
		{"De Visserlaan", "Dr.J.Th.de Visserlaan", levelCore},
		{"Mr Troelstrastraat", "Troelstrastraat", levelCore},
		{"Mr.J.C.Bührmannlaan", "Mr.J.C.Bührmannlaan", levelExact},
		{"Visserlaan", "Dr.J.Th.de Visserlaan", levelNone},
		{"Grootlaan", "Hugo de Grootlaan", levelNone},
		{"Troelstralaan", "Hugo de Grootlaan", levelNone},
	} {
		var buf [4]nameVariant
		if got := matchStreet(newTypedName(tt.typed), variantsOf(adreswijzer.Names{NL: tt.register}, "", &buf)).level; got != tt.want {
			t.Errorf("%q for %q: level %d, want %d", tt.typed, tt.register, got, tt.want)
		}
	}
}

// TestChooseStrongStreet holds the choice between the streets a validation gathers to its
// rule, over the real rows of "Troelstralaan 5" at 1381 CS: Hugo de Grootlaan 5 is at the
// typed postcode, Mr.P.J.Troelstralaan 5 at 1381 CR. The street named by its core wins even
// when the street at the postcode were similar to the typed name, and a street the typed
// name only contains is no correction: both are offered.
func TestChooseStrongStreet(t *testing.T) {
	e, _ := sampleEngine(t)
	ctx := context.Background()
	ds, ix, err := e.active(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatal(err)
	}
	r := nl("Troelstralaan 5", "1381 CS", "Weesp")
	v := &validation{e: e, ctx: ctx, ds: ds, ix: ix, c: adreswijzer.NL, r: r}
	v.parse(adreswijzer.ParseAddressLine(adreswijzer.NL, r.Address1))
	groups, err := v.gather()
	if err != nil {
		t.Fatal(err)
	}
	var atPC, core *group
	for _, g := range groups {
		switch g.addrs[0].Street.NL {
		case "Hugo de Grootlaan":
			atPC = g
		case "Mr.P.J.Troelstralaan":
			core = g
		}
	}
	if atPC == nil || core == nil {
		t.Fatalf("gathered %d groups; want Hugo de Grootlaan 5 and Mr.P.J.Troelstralaan 5", len(groups))
	}
	for _, tt := range []struct {
		name           string
		atPC, elsewise level
		best, tie      *group
	}{
		{"core beats a street that does not match", levelNone, levelCore, core, nil},
		{"core beats a similar street at the postcode", levelFuzzy, levelCore, core, nil},
		{"a similar street elsewhere beats one that does not match", levelNone, levelFuzzy, core, nil},
		{"a contained name elsewhere is offered beside the postcode's", levelNone, levelContain, core, atPC},
	} {
		atPC.street = nameMatch{level: tt.atPC, score: scoreOf(tt.atPC)}
		core.street = nameMatch{level: tt.elsewise, score: scoreOf(tt.elsewise)}
		for _, g := range []*group{atPC, core} {
			g.score = 3*g.street.score + 2*g.pcHit + g.city.score
		}
		best, tie := v.choose(groups)
		if best != tt.best || tie != tt.tie {
			t.Errorf("%s: best %v tie %v", tt.name, streetOf(best), streetOf(tie))
		}
	}
}

// scoreOf is a street score typical of the level.
func scoreOf(l level) float64 {
	switch l {
	case levelCore:
		return 0.93
	case levelFuzzy:
		return 0.9
	case levelContain:
		return 0.7
	}
	return 0
}

func streetOf(g *group) string {
	if g == nil {
		return "none"
	}
	return g.addrs[0].Street.NL + " " + g.addrs[0].Postcode
}
