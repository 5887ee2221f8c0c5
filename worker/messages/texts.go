package messages

import "github.com/adreswijzer/adreswijzer"

// catalogue is every text in one language. Placeholders in braces are filled from Details;
// tests check that none survives into an answer.
//
// Choices that hold for all four languages: imperative sentences that need no "u" or "je"
// in Dutch; "the address register" for BAG and BeST alike, because customers know neither
// name; the register's values are named without quotes, which each language would write
// differently.
type catalogue struct {
	formatInvalid      map[adreswijzer.Field]string // "" is the fallback
	formatInvalidUnit  map[adreswijzer.UnitType]string
	postcodeShape      map[adreswijzer.Country]string
	missingHouseNumber string
	postcodeNotFound   string
	// HOUSE_NUMBER_NOT_FOUND: NL looks up by postcode, BE by street.
	numberNotFoundAtPostcode string
	numberNotFoundInStreet   string
	newBuildMayBeMissing     string
	suffixNotFound           string
	unitRequired             map[adreswijzer.UnitType]string
	unitAsk                  map[adreswijzer.UnitType]string
	unitNotFound             map[adreswijzer.UnitType]string
	choose                   string // {options}
	onlyOne                  string // {options}
	or                       string // joins the last option
	andMore                  string // {n} options not named
	streetMismatch           string
	streetMismatchIs         string // {street}
	streetMismatchAt         string // {street}: the street at the typed postcode and number
	cityMismatch             string
	cityMismatchIs           string // {city}
	planned                  string
	tooLong                  map[CarrierField]string // {carrier}; no final period
	atMost                   string                  // {max}
	useShorter               string                  // {short}
	theCarrier               string                  // when the carrier is not named
	poBox                    string
	unsupportedCountry       string
	countryAmbiguous         string
	confirmedByCustomer      string
	next                     map[Situation]string
	check                    map[adreswijzer.Field]string // Blocking; "" is the whole address
	errors                   map[adreswijzer.ErrorCode][2]string
	param                    map[Problem]string // {param}, {max}
}

func catalogueFor(lang adreswijzer.Language) *catalogue {
	switch lang {
	case adreswijzer.LangFR:
		return &fr
	case adreswijzer.LangDE:
		return &de
	case adreswijzer.LangEN:
		return &en
	case adreswijzer.LangNL:
		return &nl
	}
	return catalogueFor(adreswijzer.DefaultLanguage)
}

var nl = catalogue{
	formatInvalid: map[adreswijzer.Field]string{
		adreswijzer.FieldZip:         "Deze postcode is ongeldig.",
		adreswijzer.FieldAddress1:    "Straat en huisnummer zijn niet goed ingevuld.",
		adreswijzer.FieldCity:        "De plaatsnaam is niet goed ingevuld.",
		adreswijzer.FieldCountryCode: "Deze landcode is ongeldig.",
		"":                           "Het adres is niet goed ingevuld.",
	},
	formatInvalidUnit: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "De toevoeging is niet goed ingevuld.",
		adreswijzer.UnitBus:        "Het busnummer is niet goed ingevuld.",
	},
	postcodeShape: map[adreswijzer.Country]string{
		adreswijzer.NL: "Een Nederlandse postcode heeft vier cijfers en twee letters, zoals 1234 AB.",
		adreswijzer.BE: "Een Belgische postcode heeft vier cijfers, zoals 1000.",
	},
	missingHouseNumber:       "Het huisnummer ontbreekt.",
	postcodeNotFound:         "Deze postcode is niet gevonden.",
	numberNotFoundAtPostcode: "Dit huisnummer is niet gevonden bij deze postcode.",
	numberNotFoundInStreet:   "Dit huisnummer is niet gevonden in deze straat.",
	newBuildMayBeMissing:     "Bij nieuwbouw kan het adres nog ontbreken.",
	suffixNotFound:           "Dit huisnummer bestaat niet met deze letter of toevoeging.",
	unitRequired: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Bij dit huisnummer horen meerdere adressen.",
		adreswijzer.UnitBus:        "Dit gebouw heeft meerdere brievenbussen.",
	},
	unitAsk: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Vul de toevoeging in.",
		adreswijzer.UnitBus:        "Vul het busnummer in.",
	},
	unitNotFound: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Deze toevoeging bestaat niet bij dit huisnummer.",
		adreswijzer.UnitBus:        "Dit busnummer bestaat niet op dit adres.",
	},
	choose:           "Kies uit {options}.",
	onlyOne:          "Er bestaat alleen {options}.",
	or:               "of",
	andMore:          "en nog {n} andere",
	streetMismatch:   "De straat komt niet overeen met het adresregister.",
	streetMismatchIs: "De straat wijkt af. Volgens het adresregister is het {street}.",
	streetMismatchAt: "De straat wijkt af. Volgens het adresregister hoort bij deze postcode en dit huisnummer de straat {street}.",
	cityMismatch:     "De plaats past niet bij de postcode.",
	cityMismatchIs:   "De plaats past niet bij de postcode. Volgens het adresregister is het {city}.",
	planned:          "Dit is een nieuwbouwadres. Het is geldig, ook al staat het nog niet op elke kaart.",
	tooLong: map[CarrierField]string{
		CarrierStreet:             "De straatnaam is te lang voor {carrier}",
		CarrierStreetLine:         "Straat en huisnummer samen zijn te lang voor {carrier}",
		CarrierHouseNumber:        "Het huisnummer is te lang voor {carrier}",
		CarrierAddition:           "De huisnummertoevoeging is te lang voor {carrier}",
		CarrierNumberWithAddition: "Huisnummer en toevoeging samen zijn te lang voor {carrier}",
		CarrierBox:                "Het busnummer is te lang voor {carrier}",
		CarrierPostcode:           "De postcode is te lang voor {carrier}",
		CarrierCity:               "De plaatsnaam is te lang voor {carrier}",
	},
	atMost:              " (maximaal {max} tekens)",
	useShorter:          "Gebruik de korte vorm {short}.",
	theCarrier:          "de vervoerder",
	poBox:               "Een postbus is hier niet mogelijk. Gebruik een straatadres.",
	unsupportedCountry:  "Alleen adressen in Nederland en België worden gecontroleerd, dus dit adres is niet gecontroleerd.",
	countryAmbiguous:    "Dit adres kan zowel in Nederland als in België liggen.",
	confirmedByCustomer: "Dit adres staat niet in het adresregister, maar de klant heeft het bevestigd.",
	next: map[Situation]string{
		Valid:               "Gebruik het adres zoals het is.",
		ValidPlanned:        "Gebruik het adres zoals het is, ook al is het nieuw en staat het nog niet op elke kaart.",
		Corrected:           "Controleer het verbeterde adres en gebruik het als het klopt.",
		Ambiguous:           "Kies het juiste adres uit de suggesties.",
		MissingHouseNumber:  "Vul het huisnummer in.",
		PoBoxNotAllowed:     "Gebruik een straatadres in plaats van een postbus.",
		InvalidConfirmable:  "Controleer het adres en bevestig het als het klopt.",
		ConfirmedByCustomer: "Accepteer het bevestigde adres en controleer het nog eens voor verzending.",
		UnsupportedCountry:  "Accepteer het adres zoals het is ingevuld.",
		CountryAmbiguous:    "Kies Nederland of België en controleer het adres opnieuw.",
		LookupOne:           "Gebruik dit adres.",
		LookupSeveral:       "Kies het juiste adres uit de lijst.",
		LookupNone:          "Controleer de ingevulde gegevens, want er is geen adres gevonden.",
		SuggestNone:         "Controleer de spelling, want er is geen passende straat gevonden.",
		ServiceUnavailable:  "Accepteer het adres zoals het is ingevuld en controleer het later opnieuw.",
		BatchValid:          "Gebruik de adressen zoals ze zijn.",
		BatchReview:         "Gebruik de geldige adressen zoals ze zijn en de verbeterde zoals het register ze schrijft, en controleer de andere adressen een voor een.",
		BatchAccept:         "Gebruik de geldige adressen zoals ze zijn en de verbeterde zoals het register ze schrijft, en accepteer de adressen buiten Nederland en België zoals ze zijn ingevuld, want die worden niet gecontroleerd.",
		BatchReviewAccept:   "Gebruik de geldige adressen zoals ze zijn en de verbeterde zoals het register ze schrijft, accepteer de adressen buiten Nederland en België zoals ze zijn ingevuld, en controleer de overige adressen een voor een.",
	},
	check: map[adreswijzer.Field]string{
		adreswijzer.FieldAddress1:    "Controleer de straat en het huisnummer.",
		adreswijzer.FieldAddress2:    "Controleer de toevoeging of het busnummer.",
		adreswijzer.FieldZip:         "Controleer de postcode.",
		adreswijzer.FieldCity:        "Controleer de plaatsnaam.",
		adreswijzer.FieldCountryCode: "Controleer het land.",
		adreswijzer.FieldAddress:     "Controleer het adres.",
		"":                           "Controleer het adres.",
	},
	errors: map[adreswijzer.ErrorCode][2]string{
		adreswijzer.ErrBadRequest:         {"Het verzoek kon niet worden gelezen.", "Stuur het verzoek als JSON, zoals de documentatie beschrijft."},
		adreswijzer.ErrUnauthorized:       {"De API-sleutel ontbreekt of is ongeldig.", "Stuur een geldige API-sleutel mee in de Authorization-header."},
		adreswijzer.ErrForbidden:          {"Deze sleutel heeft geen toegang tot deze dienst.", "Gebruik een sleutel met de scope address:verify."},
		adreswijzer.ErrNotFound:           {"Dit endpoint bestaat niet.", "Controleer het pad in de documentatie."},
		adreswijzer.ErrPayloadTooLarge:    {"Het verzoek is groter dan {kb} KB.", "Stuur een kleiner verzoek."},
		adreswijzer.ErrValidationFailed:   {"Een parameter ontbreekt, is onjuist of is te lang.", "Controleer de parameters aan de hand van de documentatie."},
		adreswijzer.ErrRateLimited:        {"Te veel verzoeken in korte tijd.", "Wacht zo lang als de Retry-After-header aangeeft en probeer het dan opnieuw."},
		adreswijzer.ErrQuotaExceeded:      {"De verificaties van dit abonnement zijn voor deze maand op.", "Kies een groter abonnement of wacht tot volgende maand."},
		adreswijzer.ErrDailyCapReached:    {"De daglimiet voor aanroepen is bereikt.", "Probeer het morgen opnieuw."},
		adreswijzer.ErrInternal:           {"Er ging bij ons iets mis.", "Accepteer het adres zoals het is ingevuld en controleer het later opnieuw."},
		adreswijzer.ErrServiceUnavailable: {"Het adresregister is tijdelijk niet bereikbaar.", "Accepteer het adres zoals het is ingevuld en controleer het later opnieuw."},
	},
	param: map[Problem]string{
		Missing:   "De parameter {param} ontbreekt.",
		Malformed: "De parameter {param} heeft niet de juiste vorm.",
		TooLong:   "De parameter {param} is te lang (maximaal {max} tekens).",
	},
}

var fr = catalogue{
	formatInvalid: map[adreswijzer.Field]string{
		adreswijzer.FieldZip:         "Ce code postal n'est pas valable.",
		adreswijzer.FieldAddress1:    "La rue et le numéro sont mal saisis.",
		adreswijzer.FieldCity:        "La localité est mal saisie.",
		adreswijzer.FieldCountryCode: "Ce code pays n'est pas valable.",
		"":                           "L'adresse est mal saisie.",
	},
	formatInvalidUnit: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Le complément du numéro est mal saisi.",
		adreswijzer.UnitBus:        "Le numéro de boîte est mal saisi.",
	},
	postcodeShape: map[adreswijzer.Country]string{
		adreswijzer.NL: "Un code postal néerlandais compte quatre chiffres et deux lettres, par exemple 1234 AB.",
		adreswijzer.BE: "Un code postal belge compte quatre chiffres, par exemple 1000.",
	},
	missingHouseNumber:       "Il manque le numéro de maison.",
	postcodeNotFound:         "Ce code postal est introuvable.",
	numberNotFoundAtPostcode: "Ce numéro est introuvable pour ce code postal.",
	numberNotFoundInStreet:   "Ce numéro est introuvable dans cette rue.",
	newBuildMayBeMissing:     "Une nouvelle construction peut ne pas encore y figurer.",
	suffixNotFound:           "Ce numéro n'existe pas avec cette lettre ou ce complément.",
	unitRequired: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Plusieurs adresses partagent ce numéro.",
		adreswijzer.UnitBus:        "Ce bâtiment compte plusieurs boîtes aux lettres.",
	},
	unitAsk: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Indiquez le complément du numéro.",
		adreswijzer.UnitBus:        "Indiquez le numéro de boîte.",
	},
	unitNotFound: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Ce complément n'existe pas pour ce numéro.",
		adreswijzer.UnitBus:        "Ce numéro de boîte n'existe pas à cette adresse.",
	},
	choose:           "Choisissez parmi {options}.",
	onlyOne:          "Seul {options} existe.",
	or:               "ou",
	andMore:          "et {n} autres",
	streetMismatch:   "La rue ne correspond pas au registre des adresses.",
	streetMismatchIs: "La rue ne correspond pas. Le registre des adresses indique {street}.",
	streetMismatchAt: "La rue ne correspond pas. Pour ce code postal et ce numéro, le registre des adresses indique {street}.",
	cityMismatch:     "La localité ne correspond pas au code postal.",
	cityMismatchIs:   "La localité ne correspond pas au code postal. Le registre des adresses indique {city}.",
	planned:          "Il s'agit d'une nouvelle adresse. Elle est valable, même si elle n'apparaît pas encore sur toutes les cartes.",
	// Every subject is masculine, so "trop long" agrees in all of them.
	tooLong: map[CarrierField]string{
		CarrierStreet:             "Le nom de la rue est trop long pour {carrier}",
		CarrierStreetLine:         "Le nom de la rue avec le numéro est trop long pour {carrier}",
		CarrierHouseNumber:        "Le numéro est trop long pour {carrier}",
		CarrierAddition:           "Le complément du numéro est trop long pour {carrier}",
		CarrierNumberWithAddition: "Le numéro avec son complément est trop long pour {carrier}",
		CarrierBox:                "Le numéro de boîte est trop long pour {carrier}",
		CarrierPostcode:           "Le code postal est trop long pour {carrier}",
		CarrierCity:               "Le nom de la localité est trop long pour {carrier}",
	},
	atMost:              " ({max} caractères au maximum)",
	useShorter:          "Utilisez la forme abrégée {short}.",
	theCarrier:          "le transporteur",
	poBox:               "Une boîte postale n'est pas acceptée ici. Indiquez une adresse avec rue et numéro.",
	unsupportedCountry:  "Seules les adresses aux Pays-Bas et en Belgique sont vérifiées, cette adresse n'a donc pas été vérifiée.",
	countryAmbiguous:    "Cette adresse peut se trouver aux Pays-Bas comme en Belgique.",
	confirmedByCustomer: "Cette adresse ne figure pas dans le registre des adresses, mais le client l'a confirmée.",
	next: map[Situation]string{
		Valid:               "Utilisez l'adresse telle quelle.",
		ValidPlanned:        "Utilisez l'adresse telle quelle, même si elle est nouvelle et n'apparaît pas encore sur toutes les cartes.",
		Corrected:           "Vérifiez l'adresse corrigée et utilisez-la si elle est juste.",
		Ambiguous:           "Choisissez la bonne adresse parmi les suggestions.",
		MissingHouseNumber:  "Ajoutez le numéro de maison.",
		PoBoxNotAllowed:     "Indiquez une adresse avec rue et numéro au lieu d'une boîte postale.",
		InvalidConfirmable:  "Vérifiez l'adresse et confirmez-la si elle est juste.",
		ConfirmedByCustomer: "Acceptez l'adresse confirmée et vérifiez-la encore avant l'expédition.",
		UnsupportedCountry:  "Acceptez l'adresse telle qu'elle a été saisie.",
		CountryAmbiguous:    "Choisissez les Pays-Bas ou la Belgique et vérifiez à nouveau l'adresse.",
		LookupOne:           "Utilisez cette adresse.",
		LookupSeveral:       "Choisissez la bonne adresse dans la liste.",
		LookupNone:          "Vérifiez les données saisies, car aucune adresse n'a été trouvée.",
		SuggestNone:         "Vérifiez l'orthographe, car aucune rue correspondante n'a été trouvée.",
		ServiceUnavailable:  "Acceptez l'adresse telle qu'elle a été saisie et vérifiez-la plus tard.",
		BatchValid:          "Utilisez les adresses telles quelles.",
		BatchReview:         "Utilisez les adresses valides telles quelles et les adresses corrigées telles que le registre les écrit, puis vérifiez les autres adresses une par une.",
		BatchAccept:         "Utilisez les adresses valides telles quelles et les adresses corrigées telles que le registre les écrit, et acceptez les adresses hors des Pays-Bas et de Belgique telles qu'elles ont été saisies, car elles ne sont pas vérifiées.",
		BatchReviewAccept:   "Utilisez les adresses valides telles quelles et les adresses corrigées telles que le registre les écrit, acceptez les adresses hors des Pays-Bas et de Belgique telles qu'elles ont été saisies, puis vérifiez les autres adresses une par une.",
	},
	check: map[adreswijzer.Field]string{
		adreswijzer.FieldAddress1:    "Vérifiez la rue et le numéro.",
		adreswijzer.FieldAddress2:    "Vérifiez le complément ou le numéro de boîte.",
		adreswijzer.FieldZip:         "Vérifiez le code postal.",
		adreswijzer.FieldCity:        "Vérifiez la localité.",
		adreswijzer.FieldCountryCode: "Vérifiez le pays.",
		adreswijzer.FieldAddress:     "Vérifiez l'adresse.",
		"":                           "Vérifiez l'adresse.",
	},
	errors: map[adreswijzer.ErrorCode][2]string{
		adreswijzer.ErrBadRequest:         {"La requête n'a pas pu être lue.", "Envoyez la requête en JSON, comme le décrit la documentation."},
		adreswijzer.ErrUnauthorized:       {"La clé d'API est absente ou non valable.", "Envoyez une clé d'API valable dans l'en-tête Authorization."},
		adreswijzer.ErrForbidden:          {"Cette clé n'a pas accès à ce service.", "Utilisez une clé qui dispose de la portée address:verify."},
		adreswijzer.ErrNotFound:           {"Ce point d'accès n'existe pas.", "Vérifiez le chemin dans la documentation."},
		adreswijzer.ErrPayloadTooLarge:    {"La requête dépasse {kb} Ko.", "Envoyez une requête plus petite."},
		adreswijzer.ErrValidationFailed:   {"Un paramètre est absent, mal formé ou trop long.", "Vérifiez les paramètres à l'aide de la documentation."},
		adreswijzer.ErrRateLimited:        {"Trop de requêtes en peu de temps.", "Attendez le délai indiqué par l'en-tête Retry-After, puis réessayez."},
		adreswijzer.ErrQuotaExceeded:      {"Les vérifications comprises dans votre formule sont épuisées pour ce mois.", "Passez à une formule supérieure ou attendez le mois prochain."},
		adreswijzer.ErrDailyCapReached:    {"La limite quotidienne d'appels est atteinte.", "Réessayez demain."},
		adreswijzer.ErrInternal:           {"Une erreur s'est produite de notre côté.", "Acceptez l'adresse telle qu'elle a été saisie et vérifiez-la plus tard."},
		adreswijzer.ErrServiceUnavailable: {"Le registre des adresses est temporairement indisponible.", "Acceptez l'adresse telle qu'elle a été saisie et vérifiez-la plus tard."},
	},
	param: map[Problem]string{
		Missing:   "Le paramètre {param} est absent.",
		Malformed: "Le paramètre {param} n'a pas le bon format.",
		TooLong:   "Le paramètre {param} est trop long ({max} caractères au maximum).",
	},
}

var de = catalogue{
	formatInvalid: map[adreswijzer.Field]string{
		adreswijzer.FieldZip:         "Diese Postleitzahl ist ungültig.",
		adreswijzer.FieldAddress1:    "Straße und Hausnummer sind nicht richtig angegeben.",
		adreswijzer.FieldCity:        "Der Ort ist nicht richtig angegeben.",
		adreswijzer.FieldCountryCode: "Dieser Ländercode ist ungültig.",
		"":                           "Die Adresse ist nicht richtig angegeben.",
	},
	formatInvalidUnit: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Der Hausnummernzusatz ist nicht richtig angegeben.",
		adreswijzer.UnitBus:        "Die Briefkastennummer ist nicht richtig angegeben.",
	},
	postcodeShape: map[adreswijzer.Country]string{
		adreswijzer.NL: "Eine niederländische Postleitzahl hat vier Ziffern und zwei Buchstaben, zum Beispiel 1234 AB.",
		adreswijzer.BE: "Eine belgische Postleitzahl hat vier Ziffern, zum Beispiel 1000.",
	},
	missingHouseNumber:       "Die Hausnummer fehlt.",
	postcodeNotFound:         "Diese Postleitzahl wurde nicht gefunden.",
	numberNotFoundAtPostcode: "Diese Hausnummer wurde unter dieser Postleitzahl nicht gefunden.",
	numberNotFoundInStreet:   "Diese Hausnummer wurde in dieser Straße nicht gefunden.",
	newBuildMayBeMissing:     "Bei einem Neubau kann die Adresse noch fehlen.",
	suffixNotFound:           "Diese Hausnummer gibt es nicht mit diesem Buchstaben oder Zusatz.",
	unitRequired: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Unter dieser Hausnummer gibt es mehrere Adressen.",
		adreswijzer.UnitBus:        "Dieses Gebäude hat mehrere Briefkästen.",
	},
	unitAsk: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Geben Sie den Hausnummernzusatz an.",
		adreswijzer.UnitBus:        "Geben Sie die Briefkastennummer an.",
	},
	unitNotFound: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Diesen Zusatz gibt es unter dieser Hausnummer nicht.",
		adreswijzer.UnitBus:        "Diese Briefkastennummer gibt es unter dieser Adresse nicht.",
	},
	choose:           "Zur Auswahl stehen {options}.",
	onlyOne:          "Es gibt nur {options}.",
	or:               "und",
	andMore:          "und {n} weitere",
	streetMismatch:   "Die Straße stimmt nicht mit dem Adressregister überein.",
	streetMismatchIs: "Die Straße weicht ab. Laut Adressregister heißt sie {street}.",
	streetMismatchAt: "Die Straße weicht ab. Laut Adressregister gehört zu dieser Postleitzahl und Hausnummer die Straße {street}.",
	cityMismatch:     "Der Ort passt nicht zur Postleitzahl.",
	cityMismatchIs:   "Der Ort passt nicht zur Postleitzahl. Laut Adressregister heißt er {city}.",
	planned:          "Dies ist eine Neubauadresse. Sie ist gültig, auch wenn sie noch nicht auf jeder Karte steht.",
	tooLong: map[CarrierField]string{
		CarrierStreet:             "Der Straßenname ist für {carrier} zu lang",
		CarrierStreetLine:         "Straße und Hausnummer sind zusammen für {carrier} zu lang",
		CarrierHouseNumber:        "Die Hausnummer ist für {carrier} zu lang",
		CarrierAddition:           "Der Hausnummernzusatz ist für {carrier} zu lang",
		CarrierNumberWithAddition: "Hausnummer und Zusatz sind zusammen für {carrier} zu lang",
		CarrierBox:                "Die Briefkastennummer ist für {carrier} zu lang",
		CarrierPostcode:           "Die Postleitzahl ist für {carrier} zu lang",
		CarrierCity:               "Der Ortsname ist für {carrier} zu lang",
	},
	atMost:              " (höchstens {max} Zeichen)",
	useShorter:          "Verwenden Sie die Kurzform {short}.",
	theCarrier:          "den Versanddienst",
	poBox:               "Ein Postfach ist hier nicht möglich. Geben Sie eine Straßenadresse an.",
	unsupportedCountry:  "Es werden nur Adressen in den Niederlanden und in Belgien geprüft, daher wurde diese Adresse nicht geprüft.",
	countryAmbiguous:    "Diese Adresse kann in den Niederlanden oder in Belgien liegen.",
	confirmedByCustomer: "Diese Adresse steht nicht im Adressregister, wurde aber vom Kunden bestätigt.",
	next: map[Situation]string{
		Valid:               "Verwenden Sie die Adresse unverändert.",
		ValidPlanned:        "Verwenden Sie die Adresse unverändert, auch wenn sie neu ist und noch nicht auf jeder Karte steht.",
		Corrected:           "Prüfen Sie die korrigierte Adresse und verwenden Sie sie, wenn sie stimmt.",
		Ambiguous:           "Wählen Sie die richtige Adresse aus den Vorschlägen.",
		MissingHouseNumber:  "Ergänzen Sie die Hausnummer.",
		PoBoxNotAllowed:     "Geben Sie statt eines Postfachs eine Straßenadresse an.",
		InvalidConfirmable:  "Prüfen Sie die Adresse und bestätigen Sie sie, wenn sie stimmt.",
		ConfirmedByCustomer: "Übernehmen Sie die bestätigte Adresse und prüfen Sie sie vor dem Versand noch einmal.",
		UnsupportedCountry:  "Übernehmen Sie die Adresse wie eingegeben.",
		CountryAmbiguous:    "Wählen Sie die Niederlande oder Belgien und prüfen Sie die Adresse erneut.",
		LookupOne:           "Verwenden Sie diese Adresse.",
		LookupSeveral:       "Wählen Sie die richtige Adresse aus der Liste.",
		LookupNone:          "Prüfen Sie Ihre Angaben, denn es wurde keine Adresse gefunden.",
		SuggestNone:         "Prüfen Sie die Schreibweise, denn es wurde keine passende Straße gefunden.",
		ServiceUnavailable:  "Übernehmen Sie die Adresse wie eingegeben und prüfen Sie sie später erneut.",
		BatchValid:          "Verwenden Sie die Adressen so, wie sie sind.",
		BatchReview:         "Verwenden Sie die gültigen Adressen so, wie sie sind, und die korrigierten so, wie das Register sie schreibt, und prüfen Sie die übrigen Adressen einzeln.",
		BatchAccept:         "Verwenden Sie die gültigen Adressen so, wie sie sind, und die korrigierten so, wie das Register sie schreibt, und übernehmen Sie die Adressen außerhalb der Niederlande und Belgiens wie eingegeben, denn sie werden nicht geprüft.",
		BatchReviewAccept:   "Verwenden Sie die gültigen Adressen so, wie sie sind, und die korrigierten so, wie das Register sie schreibt, übernehmen Sie die Adressen außerhalb der Niederlande und Belgiens wie eingegeben und prüfen Sie die übrigen Adressen einzeln.",
	},
	check: map[adreswijzer.Field]string{
		adreswijzer.FieldAddress1:    "Prüfen Sie Straße und Hausnummer.",
		adreswijzer.FieldAddress2:    "Prüfen Sie den Zusatz oder die Briefkastennummer.",
		adreswijzer.FieldZip:         "Prüfen Sie die Postleitzahl.",
		adreswijzer.FieldCity:        "Prüfen Sie den Ort.",
		adreswijzer.FieldCountryCode: "Prüfen Sie das Land.",
		adreswijzer.FieldAddress:     "Prüfen Sie die Adresse.",
		"":                           "Prüfen Sie die Adresse.",
	},
	errors: map[adreswijzer.ErrorCode][2]string{
		adreswijzer.ErrBadRequest:         {"Die Anfrage konnte nicht gelesen werden.", "Senden Sie die Anfrage als JSON, wie in der Dokumentation beschrieben."},
		adreswijzer.ErrUnauthorized:       {"Der API-Schlüssel fehlt oder ist ungültig.", "Senden Sie einen gültigen API-Schlüssel im Authorization-Header."},
		adreswijzer.ErrForbidden:          {"Dieser Schlüssel hat keinen Zugriff auf diesen Dienst.", "Verwenden Sie einen Schlüssel mit dem Scope address:verify."},
		adreswijzer.ErrNotFound:           {"Diesen Endpunkt gibt es nicht.", "Prüfen Sie den Pfad anhand der Dokumentation."},
		adreswijzer.ErrPayloadTooLarge:    {"Die Anfrage ist größer als {kb} KB.", "Senden Sie eine kleinere Anfrage."},
		adreswijzer.ErrValidationFailed:   {"Ein Parameter fehlt, ist fehlerhaft oder zu lang.", "Prüfen Sie die Parameter anhand der Dokumentation."},
		adreswijzer.ErrRateLimited:        {"Zu viele Anfragen in kurzer Zeit.", "Warten Sie die im Retry-After-Header angegebene Zeit ab und versuchen Sie es dann erneut."},
		adreswijzer.ErrQuotaExceeded:      {"Die Prüfungen Ihres Tarifs sind für diesen Monat aufgebraucht.", "Wechseln Sie zu einem größeren Tarif oder warten Sie bis zum nächsten Monat."},
		adreswijzer.ErrDailyCapReached:    {"Das Tageslimit für Aufrufe ist erreicht.", "Versuchen Sie es morgen erneut."},
		adreswijzer.ErrInternal:           {"Bei uns ist ein Fehler aufgetreten.", "Übernehmen Sie die Adresse wie eingegeben und prüfen Sie sie später erneut."},
		adreswijzer.ErrServiceUnavailable: {"Das Adressregister ist vorübergehend nicht erreichbar.", "Übernehmen Sie die Adresse wie eingegeben und prüfen Sie sie später erneut."},
	},
	param: map[Problem]string{
		Missing:   "Der Parameter {param} fehlt.",
		Malformed: "Der Parameter {param} hat nicht das richtige Format.",
		TooLong:   "Der Parameter {param} ist zu lang (höchstens {max} Zeichen).",
	},
}

var en = catalogue{
	formatInvalid: map[adreswijzer.Field]string{
		adreswijzer.FieldZip:         "This postcode is not valid.",
		adreswijzer.FieldAddress1:    "The street and house number are not filled in correctly.",
		adreswijzer.FieldCity:        "The town or city is not filled in correctly.",
		adreswijzer.FieldCountryCode: "This country code is not valid.",
		"":                           "The address is not filled in correctly.",
	},
	formatInvalidUnit: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "The house number addition is not filled in correctly.",
		adreswijzer.UnitBus:        "The box number is not filled in correctly.",
	},
	postcodeShape: map[adreswijzer.Country]string{
		adreswijzer.NL: "A Dutch postcode has four digits and two letters, such as 1234 AB.",
		adreswijzer.BE: "A Belgian postcode has four digits, such as 1000.",
	},
	missingHouseNumber:       "The house number is missing.",
	postcodeNotFound:         "This postcode was not found.",
	numberNotFoundAtPostcode: "This house number was not found at this postcode.",
	numberNotFoundInStreet:   "This house number was not found in this street.",
	newBuildMayBeMissing:     "A new building may not be listed yet.",
	suffixNotFound:           "This house number does not exist with this letter or addition.",
	unitRequired: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "There are several addresses at this house number.",
		adreswijzer.UnitBus:        "This building has several letterboxes.",
	},
	unitAsk: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "Enter the house number addition.",
		adreswijzer.UnitBus:        "Enter the box number.",
	},
	unitNotFound: map[adreswijzer.UnitType]string{
		adreswijzer.UnitToevoeging: "This addition does not exist at this house number.",
		adreswijzer.UnitBus:        "This box number does not exist at this address.",
	},
	choose:           "Choose from {options}.",
	onlyOne:          "Only {options} exists.",
	or:               "or",
	andMore:          "and {n} more",
	streetMismatch:   "The street does not match the address register.",
	streetMismatchIs: "The street is different. According to the address register, it is {street}.",
	streetMismatchAt: "The street is different. According to the address register, the street at this postcode and house number is {street}.",
	cityMismatch:     "The town or city does not match the postcode.",
	cityMismatchIs:   "The town or city does not match the postcode. According to the address register, it is {city}.",
	planned:          "This is a new-build address. It is valid, even if it is not on every map yet.",
	tooLong: map[CarrierField]string{
		CarrierStreet:             "The street name is too long for {carrier}",
		CarrierStreetLine:         "The street and house number together are too long for {carrier}",
		CarrierHouseNumber:        "The house number is too long for {carrier}",
		CarrierAddition:           "The house number addition is too long for {carrier}",
		CarrierNumberWithAddition: "The house number and addition together are too long for {carrier}",
		CarrierBox:                "The box number is too long for {carrier}",
		CarrierPostcode:           "The postcode is too long for {carrier}",
		CarrierCity:               "The town or city name is too long for {carrier}",
	},
	atMost:              " (at most {max} characters)",
	useShorter:          "Use the short form {short}.",
	theCarrier:          "the carrier",
	poBox:               "A PO box cannot be used here. Enter a street address.",
	unsupportedCountry:  "Only addresses in the Netherlands and Belgium are checked, so this address was not checked.",
	countryAmbiguous:    "This address could be in the Netherlands or in Belgium.",
	confirmedByCustomer: "This address is not in the address register, but the customer confirmed it.",
	next: map[Situation]string{
		Valid:               "Use the address as it is.",
		ValidPlanned:        "Use the address as it is, even though it is new and may not be on every map yet.",
		Corrected:           "Check the corrected address and use it if it is right.",
		Ambiguous:           "Choose the right address from the suggestions.",
		MissingHouseNumber:  "Add the house number.",
		PoBoxNotAllowed:     "Enter a street address instead of a PO box.",
		InvalidConfirmable:  "Check the address and confirm it if it is right.",
		ConfirmedByCustomer: "Accept the confirmed address and check it again before shipping.",
		UnsupportedCountry:  "Accept the address as entered.",
		CountryAmbiguous:    "Choose the Netherlands or Belgium and check the address again.",
		LookupOne:           "Use this address.",
		LookupSeveral:       "Choose the right address from the list.",
		LookupNone:          "Check the details entered, as no address was found.",
		SuggestNone:         "Check the spelling, as no matching street was found.",
		ServiceUnavailable:  "Accept the address as entered and check it again later.",
		BatchValid:          "Use the addresses as they are.",
		BatchReview:         "Use the valid addresses as they are and the corrected ones as the register writes them, and check the other addresses one by one.",
		BatchAccept:         "Use the valid addresses as they are and the corrected ones as the register writes them, and accept the addresses outside the Netherlands and Belgium as entered, as they are not checked.",
		BatchReviewAccept:   "Use the valid addresses as they are and the corrected ones as the register writes them, accept the addresses outside the Netherlands and Belgium as entered, and check the other addresses one by one.",
	},
	check: map[adreswijzer.Field]string{
		adreswijzer.FieldAddress1:    "Check the street and house number.",
		adreswijzer.FieldAddress2:    "Check the house number addition or box number.",
		adreswijzer.FieldZip:         "Check the postcode.",
		adreswijzer.FieldCity:        "Check the town or city.",
		adreswijzer.FieldCountryCode: "Check the country.",
		adreswijzer.FieldAddress:     "Check the address.",
		"":                           "Check the address.",
	},
	errors: map[adreswijzer.ErrorCode][2]string{
		adreswijzer.ErrBadRequest:         {"The request could not be read.", "Send the request as JSON, as the documentation describes."},
		adreswijzer.ErrUnauthorized:       {"The API key is missing or not valid.", "Send a valid API key in the Authorization header."},
		adreswijzer.ErrForbidden:          {"This key has no access to this service.", "Use a key with the address:verify scope."},
		adreswijzer.ErrNotFound:           {"This endpoint does not exist.", "Check the path in the documentation."},
		adreswijzer.ErrPayloadTooLarge:    {"The request is larger than {kb} KB.", "Send a smaller request."},
		adreswijzer.ErrValidationFailed:   {"A parameter is missing, malformed or too long.", "Check the parameters against the documentation."},
		adreswijzer.ErrRateLimited:        {"Too many requests in a short time.", "Wait as long as the Retry-After header says, then try again."},
		adreswijzer.ErrQuotaExceeded:      {"The verifications in the plan are used up for this month.", "Upgrade the plan or wait until next month."},
		adreswijzer.ErrDailyCapReached:    {"The daily limit of calls has been reached.", "Try again tomorrow."},
		adreswijzer.ErrInternal:           {"Something went wrong on our side.", "Accept the address as entered and check it again later."},
		adreswijzer.ErrServiceUnavailable: {"The address register is temporarily unavailable.", "Accept the address as entered and check it again later."},
	},
	param: map[Problem]string{
		Missing:   "The parameter {param} is missing.",
		Malformed: "The parameter {param} is not in the right format.",
		TooLong:   "The parameter {param} is too long (at most {max} characters).",
	},
}
