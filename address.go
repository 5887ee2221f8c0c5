package adreswijzer

import "strconv"

// Names holds one name in each register language. The BAG has only Dutch names; BeST has up
// to three (Brussels streets carry Dutch and French, a few Walloon municipalities German).
// An empty string means the register has no name in that language.
type Names struct {
	NL string `json:"nl,omitempty"`
	FR string `json:"fr,omitempty"`
	DE string `json:"de,omitempty"`
}

// Pick returns the name in the requested language, falling back to the other register
// languages in a fixed order, because a Walloon street has no Dutch name and a Flemish one
// rarely a French one, and an answer must always name the street.
func (n Names) Pick(lang Language) string {
	switch lang {
	case LangFR:
		return first(n.FR, n.NL, n.DE)
	case LangDE:
		return first(n.DE, n.NL, n.FR)
	}
	return first(n.NL, n.FR, n.DE)
}

// PickPrimary returns the name in the first language the register gives, in the order the
// region uses: French before Dutch for Wallonia, where the Dutch name is an exonym at best.
func (n Names) PickPrimary(frenchFirst bool) string {
	if frenchFirst {
		return first(n.FR, n.DE, n.NL)
	}
	return first(n.NL, n.FR, n.DE)
}

// All returns the distinct non-empty names, for matching input typed in any register language.
func (n Names) All() []string {
	out := make([]string, 0, 3)
	for _, s := range [...]string{n.NL, n.FR, n.DE} {
		if s != "" && !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// IsZero reports whether no language has a name.
func (n Names) IsZero() bool { return n.NL == "" && n.FR == "" && n.DE == "" }

func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Status is the life-cycle state of an address in its register.
type Status uint8

const (
	StatusUnknown Status = iota
	// StatusInUse: BAG "Naamgeving uitgegeven" on an object that exists; BeST "current".
	StatusInUse
	// StatusPlanned: a new build (BAG VBO "gevormd", STA/LIG not yet in use; BeST "proposed"
	// or "reserved"). Deliverable soon or already, so it matches, with an ADDRESS_PLANNED note.
	StatusPlanned
	// StatusRetired: withdrawn or no longer in use. Importers drop these addresses; the value
	// exists so importers can say why they skipped one.
	StatusRetired
)

func (s Status) String() string {
	switch s {
	case StatusInUse:
		return "in use"
	case StatusPlanned:
		return "planned"
	case StatusRetired:
		return "retired"
	}
	return "unknown"
}

// UnitType names what distinguishes several addresses at one house number.
type UnitType string

const (
	UnitNone       UnitType = ""
	UnitToevoeging UnitType = "toevoeging" // NL huisnummertoevoeging
	UnitBus        UnitType = "bus"        // BE box number (bus, boîte)
)

// MarshalJSON writes UnitNone as null: the spec's UnitType is "toevoeging", "bus" or null,
// never an empty string. Written by hand so this package needs no encoding/json.
func (u UnitType) MarshalJSON() ([]byte, error) {
	if u == UnitNone {
		return []byte("null"), nil
	}
	return []byte(`"` + string(u) + `"`), nil
}

// Address is one addressable object as its register describes it, denormalised: the street,
// locality and municipality names are copied in because every consumer (formatting, matching,
// answers) needs them together, and the stores intern the strings so the copies cost nothing.
type Address struct {
	Country Country `json:"country"`
	// ID is the register object id: the BAG Nummeraanduiding identificatie (16 digits) or the
	// BeST address objectIdentifier with its namespace prefix (e.g. "BA/110975").
	ID string `json:"id"`
	// StreetID is the register id of the public space (BAG OpenbareRuimte, BeST streetname);
	// stores use it to group addresses by street.
	StreetID string `json:"streetId"`
	Street   Names  `json:"street"`
	// StreetShort is the NEN 5825 short name (BAG verkorteNaam, at most 24 characters), empty
	// when the register gives none because the full name is short enough.
	StreetShort string `json:"streetShort,omitempty"`
	HouseNumber int    `json:"houseNumber"`
	// HouseNumberSuffix is the BAG huisletter, or the letters and "bis" that BeST keeps inside
	// its house number ("1161B" gives 1161 and "B", "104BIS" gives 104 and "BIS").
	HouseNumberSuffix string `json:"houseNumberSuffix,omitempty"`
	// Addition is the BAG huisnummertoevoeging (1 to 4 letters or digits).
	Addition string `json:"addition,omitempty"`
	// Box is the BeST box number (bus / boîte).
	Box string `json:"box,omitempty"`
	// Postcode in register form: NL "1234AB" (no space), BE "1130".
	Postcode string `json:"postcode"`
	// Locality is the place name on the postal line: the BAG woonplaats, or for BE the postal
	// name of the postcode (Brussels, Flanders) or else the part of municipality (Wallonia),
	// or else the municipality.
	Locality Names `json:"locality"`
	// Municipality is the BE municipality (gemeente / commune / Gemeinde); for NL the
	// gemeente when the importer knows it.
	Municipality Names `json:"municipality"`
	// SubMunicipality is the BE part of municipality (Wallonia) when the register gives one.
	SubMunicipality Names  `json:"subMunicipality"`
	Status          Status `json:"status"`
}

// UnitType reports whether this address is told apart from its neighbours at the number by a
// toevoeging (NL) or a box (BE).
func (a *Address) UnitType() UnitType {
	switch {
	case a.Country == NL && a.Addition != "":
		return UnitToevoeging
	case a.Country == BE && a.Box != "":
		return UnitBus
	}
	return UnitNone
}

// Unit is the toevoeging or box, empty when the address has none.
func (a *Address) Unit() string {
	if a.Country == BE {
		return a.Box
	}
	return a.Addition
}

// Planned reports whether the address is a new build not yet completed.
func (a *Address) Planned() bool { return a.Status == StatusPlanned }

// NumberText writes the house number as the register's own presentation does. NL follows NEN
// 5825 as Kadaster applies it: letter and toevoeging are written together, after a hyphen when
// that combination starts with a digit and after a space otherwise ("1-5A3", "1 A", "16 DK",
// "1 A3"). BE keeps BeST's form ("104BIS", "1161B").
func (a *Address) NumberText() string {
	n := ""
	if a.HouseNumber > 0 {
		n = strconv.Itoa(a.HouseNumber)
	}
	if a.Country == BE {
		return n + a.HouseNumberSuffix
	}
	ext := a.HouseNumberSuffix + a.Addition
	switch {
	case ext == "":
		return n
	case isDigit(ext[0]):
		return n + "-" + ext
	}
	return n + " " + ext
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
