package match

import "strings"

// A town is often typed with what tells it apart from its namesakes or says where it lies:
// the province ("Weesp NH", "Weesp (NH)", "Bergen (L)"), the country ("Malmedy BE",
// "Weesp, Nederland"). Some such names are the register's own (the BAG has the woonplaats
// "Bergen (NH)"), so the whole name is looked for first; only when it names no place is
// the qualifier taken off, and the town then counts as typed differently from the
// register's name.

// townQualifiers are the province and country words, folded, that may follow a town.
var townQualifiers = func() map[string]bool {
	m := map[string]bool{}
	for _, q := range []string{
		// Dutch provinces, as written and as abbreviated.
		"Noord-Holland", "NH", "N.H.", "Zuid-Holland", "ZH", "Z.H.", "Noord-Brabant", "NB", "N.B.",
		"Brabant", "Gelderland", "Gld", "Gl", "Utrecht", "Ut", "Utr", "Overijssel", "Ov",
		"Friesland", "Fryslân", "Fr", "Frl", "Groningen", "Gr", "Gn", "Drenthe", "Dr",
		"Flevoland", "Fl", "Fld", "Limburg", "L", "Lb", "Li", "Lim", "Zeeland", "Z", "Zl",
		// Belgian provinces.
		"Antwerpen", "Antw", "Anvers", "Oost-Vlaanderen", "O.-Vl.", "OVl", "West-Vlaanderen",
		"W.-Vl.", "WVl", "Vlaams-Brabant", "VB", "Brabant wallon", "BW", "Limb", "Liège", "Lg",
		"Luxembourg", "Lux", "Namur", "Nam", "Hainaut", "Ht", "Henegouwen",
		// Countries.
		"NL", "NLD", "Nederland", "Netherlands", "The Netherlands", "Holland", "Pays-Bas",
		"BE", "B", "BEL", "België", "Belgie", "Belgique", "Belgium", "Belgien",
	} {
		m[fold(q)] = true
	}
	return m
}()

// maxQualifierWords is the longest qualifier in words ("The Netherlands", "O Vl").
const maxQualifierWords = 3

// townOf returns the town of a typed city without a trailing qualifier: a group in
// brackets, or province or country words after it (with or without a comma or dash
// between). It returns "" when the city has no qualifier or nothing would be left.
func townOf(city string) string {
	t := strings.TrimSpace(city)
	if strings.HasSuffix(t, ")") {
		if i := strings.LastIndexByte(t, '('); i > 0 {
			return trimTown(t[:i])
		}
	}
	words := strings.Fields(t)
	for k := min(maxQualifierWords, len(words)-1); k >= 1; k-- {
		if townQualifiers[fold(strings.Join(words[len(words)-k:], " "))] {
			return trimTown(strings.Join(words[:len(words)-k], " "))
		}
	}
	return ""
}

// trimTown removes what separated a town from its qualifier.
func trimTown(s string) string { return strings.Trim(s, " ,;-/") }
