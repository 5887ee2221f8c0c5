package best

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestSplitHouseNumber(t *testing.T) {
	tests := []struct {
		in     string
		number int
		suffix string
		err    error
	}{
		// Forms from the sample and from BOSA's national house number report (OUT_hsBx.txt).
		{"138", 138, "", nil},
		{"104BIS", 104, "BIS", nil},
		{"1161B", 1161, "B", nil},
		{"240/1", 240, "/1", nil},
		{"54/12", 54, "/12", nil},
		{"2Bis", 2, "Bis", nil},
		{"42B1", 42, "B1", nil},
		{"4b", 4, "b", nil},
		{"9ter", 9, "ter", nil},
		{"350I", 350, "I", nil},
		{" 12 ", 12, "", nil},
		{"012", 12, "", nil},
		{"999999", 999999, "", nil},
		{"", 0, "", errNumberEmpty},
		{"   ", 0, "", errNumberEmpty},
		{"zn", 0, "", errNumberNoDigit},
		{"xxxx", 0, "", errNumberNoDigit},
		{"/1", 0, "", errNumberNoDigit},
		{"0", 0, "", errNumberZero},
		{"00A", 0, "", errNumberZero},
		{"1000000", 0, "", errNumberTooLong},
		{"12\x00", 0, "", errNumberControls},
		{"12\xff", 0, "", errNumberUTF8},
	}
	for _, tc := range tests {
		n, s, err := splitHouseNumber(tc.in)
		if n != tc.number || s != tc.suffix || err != tc.err {
			t.Errorf("splitHouseNumber(%q) = %d, %q, %v; want %d, %q, %v", tc.in, n, s, err, tc.number, tc.suffix, tc.err)
		}
	}
}

// Every house number BOSA counted in the 2019 national download splits as the register
// writes it, except those without a leading digit or equal to zero, which the importer skips.
func TestSplitHouseNumberNationalForms(t *testing.T) {
	f, err := os.Open(sampleFile(t, "OUT_hsBx.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	section := ""
	var forms, ok, noDigit, zero int
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Hs=") || strings.HasPrefix(line, "Bx=") {
			section = line
			continue
		}
		if !strings.HasPrefix(section, "Hs=Nat") || !strings.HasPrefix(line, "('") {
			continue
		}
		// Lines look like ('104BIS', 1).
		end := strings.LastIndex(line, "',")
		if end < 2 {
			continue
		}
		hs := line[2:end]
		forms++
		n, suffix, err := splitHouseNumber(hs)
		switch err {
		case nil:
			ok++
			if strings.TrimLeft(strings.TrimSpace(hs), "0") != strconv.Itoa(n)+suffix {
				t.Errorf("%q split into %d and %q", hs, n, suffix)
			}
		case errNumberNoDigit:
			noDigit++
		case errNumberZero:
			zero++
		default:
			t.Errorf("%q: %v", hs, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d national forms: %d split, %d without a leading digit, %d zero", forms, ok, noDigit, zero)
	if forms < 10000 || ok < forms*9/10 {
		t.Errorf("%d forms, %d split; the report should hold tens of thousands of forms, nearly all with a number", forms, ok)
	}
}

func FuzzSplitHouseNumber(f *testing.F) {
	for _, s := range []string{"138", "104BIS", "1161B", "240/1", "2Bis", "b001", "0", "", "1000000", "12\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, suffix, err := splitHouseNumber(s)
		if err != nil {
			if err.Error() == "" || n != 0 || suffix != "" {
				t.Fatalf("error %v with %d %q", err, n, suffix)
			}
			return
		}
		if n < 1 || n > 999999 {
			t.Fatalf("number %d out of range", n)
		}
		if suffix != "" && suffix[0] >= '0' && suffix[0] <= '9' {
			t.Fatalf("suffix %q starts with a digit", suffix)
		}
		if strings.TrimLeft(strings.TrimSpace(s), "0") != strconv.Itoa(n)+suffix {
			t.Fatalf("%q split into %d and %q", s, n, suffix)
		}
	})
}
