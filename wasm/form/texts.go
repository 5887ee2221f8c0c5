package form

import (
	"strconv"
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// text names a sentence or label of the form itself. What the register says about an
// address (issues, next steps) comes from the API in the requested language; these are the
// words the API cannot know: labels, list states, and what happens when the API is not
// there to ask.
type text uint8

const (
	txtPostcode text = iota
	txtNumber
	txtAddition
	txtBox
	txtStreet
	txtCity
	txtOptional
	txtNoAddition
	txtNoBox
	txtManual
	txtConfirm
	txtPostcodeFormat
	txtPostcodeFormatBE
	txtNumberMissing
	txtNumberTooLong
	txtStreetMissing
	txtCityMissing
	txtChooseAddition
	txtChooseBox
	txtAdditions
	txtBoxes
	txtStreets
	txtStreet1
	txtFound
	txtChosen
	txtOffline
	txtDisabled
	txtManualHint
	txtAcceptedAsTyped
	txtConfirmed
	txtChooseSuggestion
	txtSearching
	txtCorrection
	txtKeepTyped
	txtRegion
	txtHintKeys
	txtUseThis
	txtCorrections
	txtWithout
	txtSearchBack
	txtCredit
	numTexts
)

// Placeholders: {n} a count, {a} an address. Replaced without fmt, which the WebAssembly
// build avoids for its size. Arrays rather than a map: their values are laid out in the
// module's data, where a map would be built by code at start-up.
var textsNL = [numTexts]string{
	txtPostcode:         "Postcode",
	txtNumber:           "Huisnummer",
	txtAddition:         "Toevoeging",
	txtBox:              "Bus",
	txtStreet:           "Straat",
	txtCity:             "Plaats",
	txtOptional:         "(niet verplicht)",
	txtNoAddition:       "geen toevoeging",
	txtNoBox:            "geen bus",
	txtManual:           "Adres zelf invullen",
	txtConfirm:          "Dit adres klopt, gebruik het zoals ik het heb ingevuld",
	txtPostcodeFormat:   "Vul een geldige postcode in, bijvoorbeeld 1234 AB.",
	txtPostcodeFormatBE: "Vul een geldige postcode van vier cijfers in, bijvoorbeeld 1000.",
	txtNumberMissing:    "Vul een huisnummer in.",
	txtNumberTooLong:    "Dit huisnummer is te lang: een huisnummer heeft hoogstens {n} cijfers.",
	txtStreetMissing:    "Vul de straat in.",
	txtCityMissing:      "Vul de plaats in.",
	txtChooseAddition:   "Kies een toevoeging uit de lijst.",
	txtChooseBox:        "Kies een busnummer uit de lijst.",
	txtAdditions:        "{n} adressen op dit huisnummer. Kies de toevoeging uit de lijst.",
	txtBoxes:            "{n} adressen op dit huisnummer. Kies het busnummer uit de lijst.",
	txtStreets:          "{n} straten gevonden. Kies de straat uit de lijst.",
	txtStreet1:          "1 straat gevonden. Kies de straat uit de lijst.",
	txtFound:            "Adres gevonden: {a}.",
	txtChosen:           "Adres: {a}.",
	txtOffline:          "De adrescontrole reageert nu niet. Vul uw adres zelf in; het wordt gebruikt zoals ingevuld.",
	txtDisabled:         "De adrescontrole is op deze website niet beschikbaar. Vul uw adres zelf in.",
	txtManualHint:       "Vul de straat en de plaats zelf in.",
	txtAcceptedAsTyped:  "Adres overgenomen zoals ingevuld: {a}.",
	txtConfirmed:        "Adres bevestigd: {a}.",
	txtChooseSuggestion: "Kies het juiste adres uit de lijst.",
	txtSearching:        "Adres zoeken…",
	txtCorrection:       "Volgens het adresregister is het adres: {a}.",
	txtKeepTyped:        "Mijn adres houden zoals ingevuld",
	txtRegion:           "Adres",
	txtHintKeys:         "Gebruik de pijltjestoetsen of klik erop.",
	txtUseThis:          "Gebruik {a}",
	txtCorrections:      "Volgens het adresregister is het een van deze adressen:",
	txtWithout:          "(zonder toevoeging „{a}”)",
	txtSearchBack:       "Adres laten opzoeken",
	txtCredit:           "Bevat gegevens van BeST Address (FOD BOSA), onder licentie CC BY 4.0.",
}

var textsFR = [numTexts]string{
	txtPostcode:         "Code postal",
	txtNumber:           "Numéro",
	txtAddition:         "Complément",
	txtBox:              "Boîte",
	txtStreet:           "Rue",
	txtCity:             "Localité",
	txtOptional:         "(facultatif)",
	txtNoAddition:       "sans complément",
	txtNoBox:            "sans boîte",
	txtManual:           "Saisir l'adresse moi-même",
	txtConfirm:          "Cette adresse est correcte, utilisez-la telle que je l'ai saisie",
	txtPostcodeFormat:   "Saisissez un code postal valide, par exemple 1234 AB.",
	txtPostcodeFormatBE: "Saisissez un code postal valide de quatre chiffres, par exemple 1000.",
	txtNumberMissing:    "Saisissez un numéro.",
	txtNumberTooLong:    "Ce numéro est trop long : un numéro compte au plus {n} chiffres.",
	txtStreetMissing:    "Saisissez la rue.",
	txtCityMissing:      "Saisissez la localité.",
	txtChooseAddition:   "Choisissez un complément dans la liste.",
	txtChooseBox:        "Choisissez un numéro de boîte dans la liste.",
	txtAdditions:        "{n} adresses à ce numéro. Choisissez le complément dans la liste.",
	txtBoxes:            "{n} adresses à ce numéro. Choisissez la boîte dans la liste.",
	txtStreets:          "{n} rues trouvées. Choisissez la rue dans la liste.",
	txtStreet1:          "1 rue trouvée. Choisissez la rue dans la liste.",
	txtFound:            "Adresse trouvée : {a}.",
	txtChosen:           "Adresse : {a}.",
	txtOffline:          "Le contrôle d'adresse ne répond pas pour le moment. Saisissez votre adresse ; elle sera utilisée telle quelle.",
	txtDisabled:         "Le contrôle d'adresse n'est pas disponible sur ce site. Saisissez votre adresse vous-même.",
	txtManualHint:       "Saisissez vous-même la rue et la localité.",
	txtAcceptedAsTyped:  "Adresse reprise telle que saisie : {a}.",
	txtConfirmed:        "Adresse confirmée : {a}.",
	txtChooseSuggestion: "Choisissez la bonne adresse dans la liste.",
	txtSearching:        "Recherche de l'adresse…",
	txtCorrection:       "Selon le registre des adresses, l'adresse est : {a}.",
	txtKeepTyped:        "Garder mon adresse telle que saisie",
	txtRegion:           "Adresse",
	txtHintKeys:         "Utilisez les flèches ou cliquez.",
	txtUseThis:          "Utiliser {a}",
	txtCorrections:      "Selon le registre des adresses, l'adresse est l'une de celles-ci :",
	txtWithout:          "(sans le complément « {a} »)",
	txtSearchBack:       "Faire rechercher l'adresse",
	txtCredit:           "Contient des données BeST Address du SPF BOSA, sous licence CC BY 4.0.",
}

var textsDE = [numTexts]string{
	txtPostcode:         "Postleitzahl",
	txtNumber:           "Hausnummer",
	txtAddition:         "Zusatz",
	txtBox:              "Briefkasten",
	txtStreet:           "Straße",
	txtCity:             "Ort",
	txtOptional:         "(optional)",
	txtNoAddition:       "kein Zusatz",
	txtNoBox:            "kein Briefkasten",
	txtManual:           "Adresse selbst eingeben",
	txtConfirm:          "Diese Adresse stimmt, so wie ich sie eingegeben habe",
	txtPostcodeFormat:   "Geben Sie eine gültige Postleitzahl ein, zum Beispiel 1234 AB.",
	txtPostcodeFormatBE: "Geben Sie eine gültige vierstellige Postleitzahl ein, zum Beispiel 1000.",
	txtNumberMissing:    "Geben Sie eine Hausnummer ein.",
	txtNumberTooLong:    "Diese Hausnummer ist zu lang: Eine Hausnummer hat höchstens {n} Ziffern.",
	txtStreetMissing:    "Geben Sie die Straße ein.",
	txtCityMissing:      "Geben Sie den Ort ein.",
	txtChooseAddition:   "Wählen Sie einen Zusatz aus der Liste.",
	txtChooseBox:        "Wählen Sie einen Briefkasten aus der Liste.",
	txtAdditions:        "{n} Adressen unter dieser Hausnummer. Wählen Sie den Zusatz aus der Liste.",
	txtBoxes:            "{n} Adressen unter dieser Hausnummer. Wählen Sie den Briefkasten aus der Liste.",
	txtStreets:          "{n} Straßen gefunden. Wählen Sie die Straße aus der Liste.",
	txtStreet1:          "1 Straße gefunden. Wählen Sie die Straße aus der Liste.",
	txtFound:            "Adresse gefunden: {a}.",
	txtChosen:           "Adresse: {a}.",
	txtOffline:          "Die Adressprüfung antwortet gerade nicht. Geben Sie Ihre Adresse ein; sie wird wie eingegeben verwendet.",
	txtDisabled:         "Die Adressprüfung ist auf dieser Website nicht verfügbar. Bitte geben Sie Ihre Adresse selbst ein.",
	txtManualHint:       "Geben Sie Straße und Ort selbst ein.",
	txtAcceptedAsTyped:  "Adresse wie eingegeben übernommen: {a}.",
	txtConfirmed:        "Adresse bestätigt: {a}.",
	txtChooseSuggestion: "Wählen Sie die richtige Adresse aus der Liste.",
	txtSearching:        "Adresse wird gesucht…",
	txtCorrection:       "Laut Adressregister lautet die Adresse: {a}.",
	txtKeepTyped:        "Meine Adresse wie eingegeben behalten",
	txtRegion:           "Adresse",
	txtHintKeys:         "Mit den Pfeiltasten oder per Klick.",
	txtUseThis:          "{a} verwenden",
	txtCorrections:      "Laut Adressregister ist es eine dieser Adressen:",
	txtWithout:          "(ohne Zusatz „{a}“)",
	txtSearchBack:       "Adresse suchen lassen",
	txtCredit:           "Enthält Daten von BeST Address (FÖD BOSA), lizenziert unter CC BY 4.0.",
}

var textsEN = [numTexts]string{
	txtPostcode:         "Postcode",
	txtNumber:           "House number",
	txtAddition:         "Addition",
	txtBox:              "Box",
	txtStreet:           "Street",
	txtCity:             "Town or city",
	txtOptional:         "(optional)",
	txtNoAddition:       "no addition",
	txtNoBox:            "no box",
	txtManual:           "Enter the address myself",
	txtConfirm:          "This address is correct, use it as I entered it",
	txtPostcodeFormat:   "Enter a valid postcode, for example 1234 AB.",
	txtPostcodeFormatBE: "Enter a valid four-digit postcode, for example 1000.",
	txtNumberMissing:    "Enter a house number.",
	txtNumberTooLong:    "This house number is too long: a house number has at most {n} digits.",
	txtStreetMissing:    "Enter the street.",
	txtCityMissing:      "Enter the town or city.",
	txtChooseAddition:   "Choose an addition from the list.",
	txtChooseBox:        "Choose a box number from the list.",
	txtAdditions:        "{n} addresses at this number. Choose the addition from the list.",
	txtBoxes:            "{n} addresses at this number. Choose the box from the list.",
	txtStreets:          "{n} streets found. Choose the street from the list.",
	txtStreet1:          "1 street found. Choose the street from the list.",
	txtFound:            "Address found: {a}.",
	txtChosen:           "Address: {a}.",
	txtOffline:          "The address check is not responding right now. Enter your address; it will be used as entered.",
	txtDisabled:         "Address checking is not available on this website. Please enter your address yourself.",
	txtManualHint:       "Enter the street and the town yourself.",
	txtAcceptedAsTyped:  "Address taken as entered: {a}.",
	txtConfirmed:        "Address confirmed: {a}.",
	txtChooseSuggestion: "Choose the right address from the list.",
	txtSearching:        "Looking up the address…",
	txtCorrection:       "According to the address register, the address is: {a}.",
	txtKeepTyped:        "Keep my address as entered",
	txtRegion:           "Address",
	txtHintKeys:         "Use the arrow keys or click.",
	txtUseThis:          "Use {a}",
	txtCorrections:      "According to the address register, the address is one of these:",
	txtWithout:          "(without the addition “{a}”)",
	txtSearchBack:       "Look the address up for me",
	txtCredit:           "Contains BeST Address data of FPS BOSA, licensed under CC BY 4.0.",
}

// texts is the table of a language, nil for one the form does not speak.
func texts(lang adreswijzer.Language) *[numTexts]string {
	switch lang {
	case adreswijzer.LangNL:
		return &textsNL
	case adreswijzer.LangFR:
		return &textsFR
	case adreswijzer.LangDE:
		return &textsDE
	case adreswijzer.LangEN:
		return &textsEN
	}
	return nil
}

// say returns a text in the language with its placeholders filled.
func say(lang adreswijzer.Language, t text, n int, addr string) string {
	tab := texts(lang)
	if tab == nil {
		tab = texts(adreswijzer.DefaultLanguage)
	}
	s := tab[t]
	if strings.Contains(s, "{n}") {
		s = strings.ReplaceAll(s, "{n}", strconv.Itoa(n))
	}
	if strings.Contains(s, "{a}") {
		s = strings.ReplaceAll(s, "{a}", addr)
	}
	return s
}
