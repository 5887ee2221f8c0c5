package xmlscan

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every name encoding/xml accepts, a Scanner accepts: the Fifth Edition ranges contain the
// older tables. Checked for every rune as the first and as a later character of a name.
func TestNamesAcceptedByEncodingXML(t *testing.T) {
	goAccepts := func(name string) bool {
		_, err := xml.NewDecoder(strings.NewReader("<" + name + "/>")).Token()
		return err == nil
	}
	var buf []byte
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		buf = utf8.AppendRune(buf[:0], r)
		first, later := string(buf), "a"+string(buf)
		if !checkName([]byte(first), true) && goAccepts(first) {
			t.Errorf("%U: encoding/xml accepts it to start a name, the Scanner does not", r)
		}
		if !checkName([]byte(later), true) && goAccepts(later) {
			t.Errorf("%U: encoding/xml accepts it in a name, the Scanner does not", r)
		}
	}
}
