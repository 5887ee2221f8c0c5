package gen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxShortName is the length of the NEN 5825 short name the BAG carries beside every street
// name longer than this (verkorteNaam).
const maxShortName = 24

// shortTitles are abbreviations NEN 5825 short names commonly use for titles and ranks.
var shortTitles = map[string]string{
	"Burgemeester": "Burg", "Dokter": "Dr", "Doctor": "Dr", "Professor": "Prof", "Koningin": "Kon",
	"Koning": "Kon", "Prinses": "Pr", "Prins": "Pr", "Generaal": "Gen", "Luitenant": "Lt",
	"Kolonel": "Kol", "Meester": "Mr", "Mevrouw": "Mevr", "Sint": "St", "Pastoor": "Past",
	"Kapitein": "Kapt", "Admiraal": "Adm", "Ingenieur": "Ir", "Jonkheer": "Jhr", "Gebroeders": "Gebr",
	"van": "v", "de": "d", "der": "d", "den": "d",
}

// shortSuffixes shorten the kind of street at the end of the last word.
var shortSuffixes = [...][2]string{{"straat", "str"}, {"laan", "ln"}, {"plein", "pln"}, {"singel", "sngl"}}

// shortName makes a short name for a street name longer than 24 characters, the way the
// real ones read ("Henriëtte Roland Holsthof" → "H Roland Holsthof"): abbreviated titles and
// particles first, then the kind of street, then initials for the leading names, then
// truncation. It is a simplified NEN 5825, good enough for synthetic data; the register's
// own short names follow the full standard.
func shortName(name string) string {
	if utf8.RuneCountInString(name) <= maxShortName {
		return ""
	}
	w := strings.Fields(name)
	fits := func() bool { return utf8.RuneCountInString(strings.Join(w, " ")) <= maxShortName }
	title := make([]bool, len(w))
	for i := 0; i < len(w)-1 && !fits(); i++ {
		if s, ok := shortTitles[w[i]]; ok {
			w[i], title[i] = s, true
		}
	}
	if !fits() {
		last := w[len(w)-1]
		for _, s := range shortSuffixes {
			if strings.HasSuffix(last, s[0]) && len(last) > len(s[0]) {
				w[len(w)-1] = strings.TrimSuffix(last, s[0]) + s[1]
				break
			}
		}
	}
	for i := 0; i < len(w)-1 && !fits(); i++ {
		if r, _ := utf8.DecodeRuneInString(w[i]); !title[i] && unicode.IsUpper(r) {
			w[i] = string(r)
		}
	}
	out := strings.Join(w, " ")
	if utf8.RuneCountInString(out) > maxShortName {
		out = strings.TrimRight(string([]rune(out)[:maxShortName]), " -.")
	}
	return out
}
