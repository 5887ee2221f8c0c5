package adreswijzer

import "testing"

// The register-form shortcut must split exactly as the full path for typed text does, or a
// stored postcode and the same text typed would be judged differently.
func TestRegisterFormAgreesWithTyped(t *testing.T) {
	for _, s := range []string{"1011AB", "1381AT", "9999ZZ", "0612", "1130", "9992", "1234SA", "0000", "1011ab",
		"1011 AB", "1011A", "101AB", "10110", "NL1011AB", "B1130", "BE12", "1011ÅB", "\uff11011AB", "1011A\u00df"} {
		checkRegisterForm(t, s)
	}
}

func FuzzRegisterForm(f *testing.F) {
	for _, s := range []string{"1011AB", "1130", "0612", "1011ab", "NL12"} {
		f.Add(s)
	}
	f.Fuzz(checkRegisterForm)
}

func checkRegisterForm(t *testing.T, s string) {
	p, ok := registerForm(s)
	if !ok {
		return
	}
	q, err := splitTyped(s)
	if err != nil || p != q {
		t.Errorf("%q: register form %+v, typed %+v, %v", s, p, q, err)
	}
}
