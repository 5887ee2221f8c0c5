package adreswijzer

import "testing"

// The register-form shortcut must split exactly as the full path for typed text does, or a
// stored postcode and the same text typed would be judged differently.
func TestRegisterFormAgreesWithTyped(t *testing.T) {
	// The register's own forms take the shortcut (valid or not as postcodes: NormalizePostcode
	// judges that after the split); the rest of the list must not.
	shortcut := []string{"1011AB", "1381AT", "9999ZZ", "0612", "1130", "9992", "1234SA", "0000"}
	typed := []string{"1011ab", "1011 AB", "1011A", "101AB", "10110", "NL1011AB", "B1130", "BE12", "1011ÅB",
		"\uff11011AB", "1011A\u00df"}
	for _, s := range shortcut {
		if _, ok := registerForm(s); !ok {
			t.Errorf("%q: the register form does not take the shortcut", s)
		}
		checkRegisterForm(t, s)
	}
	for _, s := range typed {
		if _, ok := registerForm(s); ok {
			t.Errorf("%q: typed text takes the register-form shortcut", s)
		}
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
