package match

import "strings"

// People name their town the way they speak, not the way the register does: "Den Haag" for the
// BAG woonplaats 's-Gravenhage, "Den Bosch" for 's-Hertogenbosch, the Dutch name of a Frisian
// village whose official name is Frisian (or the reverse), and in Belgium the name in their own
// language: BeST carries French and German names for the larger Flemish towns and both names in
// Brussels, but only the French name for Walloon towns (Liège, Mons, Namur), so the Dutch
// exonyms (Luik, Bergen, Namen) and the English ones must come from this table
// (address-rules §4). Each group lists names of one place; a typed name that is in a group
// accepts every other name of the group.
//
// In the Netherlands an alias is a correction (CITY_MISMATCH), never a silent match: the
// postal line carries the BAG woonplaats, and a customer who typed "Den Haag" should see
// the name the label will print. In Belgium a place has a name in each national language,
// and BeST itself counts every one of them as the place (Brussel and Bruxelles, Halle and
// Hal); the names it happens not to carry (German and English for Brussels, Dutch for
// Walloon towns, French for Lembeek) are names of the same kind, so there they match as
// the register's own names do, and the answer prints the register's name all the same.
var aliasGroups = [][]string{
	// Netherlands.
	{"'s-Gravenhage", "Den Haag", "The Hague", "Den Haach"},
	{"'s-Hertogenbosch", "Den Bosch"},
	{"Leeuwarden", "Ljouwert"},
	{"Sneek", "Snits"},
	{"Franeker", "Frjentsjer"},
	{"Harlingen", "Harns"},
	{"Bolsward", "Boalsert"},
	{"Heerenveen", "It Hearrenfean"},
	{"Joure", "De Jouwer"},
	{"Workum", "Warkum"},
	{"Stavoren", "Starum"},
	{"Hindeloopen", "Hylpen"},
	{"Sloten", "Sleat"},
	{"IJlst", "Drylts"},
	{"Grou", "Grouw"},
	{"Damwâld", "Damwoude"},
	{"Burgum", "Bergum"},
	{"Feanwâlden", "Veenwouden"},
	{"Gytsjerk", "Giekerk"},
	{"Hurdegaryp", "Hardegarijp"},
	{"Jirnsum", "Irnsum"},
	{"Aldeboarn", "Oldeboorn"},
	{"Wergea", "Warga"},
	{"Raerd", "Rauwerd"},
	{"Reduzum", "Roordahuizum"},
	{"Tytsjerk", "Tietjerk"},
	{"Oentsjerk", "Oenkerk"},
	{"Aldtsjerk", "Oudkerk"},
	{"Garyp", "Garijp"},
	{"Earnewâld", "Eernewoude"},
	{"Eanjum", "Anjum"},
	{"Eastrum", "Oostrum"},
	{"Moarre", "Morra"},
	{"Aldwâld", "Oudwoude"},
	{"Westergeast", "Westergeest"},
	{"Broeksterwâld", "Broeksterwoude"},
	{"Koarnjum", "Cornjum"},
	{"Easterein", "Oosterend"},
	{"Wurdum", "Wirdum"},
	{"Easterlittens", "Oosterlittens"},
	// Belgium: Brussels and the larger towns in the other national languages and English.
	{"Brussel", "Bruxelles", "Brussels", "Brüssel"},
	{"Antwerpen", "Anvers", "Antwerp"},
	{"Gent", "Gand", "Ghent"},
	{"Brugge", "Bruges", "Brügge"},
	{"Leuven", "Louvain", "Löwen"},
	{"Mechelen", "Malines", "Mecheln"},
	{"Kortrijk", "Courtrai"},
	{"Ieper", "Ypres"},
	{"Halle", "Hal"},
	{"Lembeek", "Lembecq"},
	{"Liège", "Luik", "Lüttich", "Liege"},
	{"Mons", "Bergen"},
	{"Namur", "Namen"},
	{"Tournai", "Doornik"},
	{"Wavre", "Waver"},
	{"Mouscron", "Moeskroen"},
	{"Arlon", "Aarlen", "Arel"},
	{"Nivelles", "Nijvel"},
	{"Jodoigne", "Geldenaken"},
	{"Huy", "Hoei"},
	{"Enghien", "Edingen"},
	{"Ath", "Aat"},
	{"Soignies", "Zinnik"},
	{"Lessines", "Lessen"},
	{"Luingne", "Lowingen"},
	{"Comines", "Komen"},
	{"Warneton", "Waasten"},
	{"Waremme", "Borgworm"},
	{"Hannut", "Hannuit"},
	{"Bastogne", "Bastenaken"},
	{"Gembloux", "Gembloers"},
	{"Braine-l'Alleud", "Eigenbrakel"},
	{"Braine-le-Comte", "'s-Gravenbrakel"},
	{"Braine-le-Château", "Kasteelbrakel"},
	{"Tienen", "Tirlemont"},
	{"Tongeren", "Tongres"},
	{"Sint-Truiden", "Saint-Trond"},
	{"Oudenaarde", "Audenarde"},
	{"Ronse", "Renaix"},
	{"Geraardsbergen", "Grammont"},
	{"Dendermonde", "Termonde"},
	{"Aalst", "Alost"},
	{"Veurne", "Furnes"},
	{"Roeselare", "Roulers"},
	{"Menen", "Menin"},
	{"Lier", "Lierre"},
	{"Vilvoorde", "Vilvorde"},
	{"Voeren", "Fourons"},
	{"Sankt Vith", "Saint-Vith"},
	{"Kelmis", "La Calamine"},
	{"Malmedy", "Malmédy"},
}

// aliases maps the city key of a name to the keys of the other names of its place.
var aliases = buildAliases(aliasGroups)

func buildAliases(groups [][]string) map[string][]string {
	m := make(map[string][]string)
	for _, g := range groups {
		keys := make([]string, len(g))
		for i, n := range g {
			keys[i] = cityKey(n)
		}
		for _, k := range keys {
			for _, o := range keys {
				if o != k && !containsString(m[k], o) {
					m[k] = append(m[k], o)
				}
			}
		}
	}
	return m
}

// isAlias reports whether the typed city key names the same place as the register key.
func isAlias(typed, register string) bool {
	return containsString(aliases[typed], register)
}

// cityKey is the canonical key of a place name: abbreviations as for streets ("St." and
// "Sint"), the Dutch "a/d" for "aan de(n)" and the article "'s"/"s" kept as one letter.
func cityKey(s string) string {
	f := fold(s)
	for _, p := range [...]struct{ from, to string }{{"aan den", "ad"}, {"aan de", "ad"}, {"a d", "ad"}} {
		if strings.Contains(f, p.from) {
			f = replaceWords(f, p.from, p.to)
		}
	}
	return canon(f)
}

// placeNameParts splits a composite register name into the names a person might type:
// BeST postal names such as "Brussel (Haren)" or "Berchem (O.-Vl.)/Kluisbergen" and Brussels
// double labels "Chaussée de Mons - Bergense Steenweg".
func placeNameParts(s string) []string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '(' || r == ')' || r == '/' })
	out := make([]string, 0, len(parts)+1)
	for _, p := range parts {
		for q := range strings.SplitSeq(p, " - ") {
			if q = strings.TrimSpace(q); q != "" && q != s {
				out = append(out, q)
			}
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
