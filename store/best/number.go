package best

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// The errors name the problem, never the value: the value is a house number and may end up in
// a log line.
var (
	errNumberEmpty    = errors.New("house number is empty")
	errNumberUTF8     = errors.New("house number is not valid UTF-8")
	errNumberNoDigit  = errors.New("house number does not start with a digit")
	errNumberZero     = errors.New("house number is zero")
	errNumberTooLong  = errors.New("house number has more than " + strconv.Itoa(adreswijzer.MaxNumberDigits) + " digits")
	errNumberControls = errors.New("house number contains a control character")
)

// splitHouseNumber splits a BeST house number into its leading number and the rest. BeST keeps
// letters, "bis" and slashes inside the house number ("104BIS", "1161B", "240/1", "2Bis"), while
// lookups key on the number alone, so the rest becomes the suffix exactly as the register writes
// it: NumberText puts the two back together unchanged. Leading zeros are dropped from the number
// because a lookup for 12 must find "012"; no real BeST number in the samples has them.
func splitHouseNumber(s string) (number int, suffix string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, "", errNumberEmpty
	}
	if !utf8.ValidString(s) {
		return 0, "", errNumberUTF8
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return 0, "", errNumberControls
		}
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, "", errNumberNoDigit
	}
	digits := strings.TrimLeft(s[:i], "0")
	switch {
	case digits == "":
		return 0, "", errNumberZero
	case len(digits) > adreswijzer.MaxNumberDigits:
		return 0, "", errNumberTooLong
	}
	n, err := strconv.Atoi(digits)
	if err != nil { // unreachable with at most six ASCII digits; kept so a change above cannot panic later
		return 0, "", errNumberTooLong
	}
	return n, s[i:], nil
}
