package match

import "github.com/adreswijzer/adreswijzer"

// readRequest is how a validate request comes in: its postcode and town are read where
// the customer or the platform put them (adreswijzer.ReadFields, the reader the agent's
// free-form text goes through too). moved reports that they were elsewhere than in their
// fields, which makes the input differ from the address it names.
func readRequest(c adreswijzer.Country, r adreswijzer.ValidateRequest, known adreswijzer.PlaceKnown) (adreswijzer.ValidateRequest, bool) {
	f := adreswijzer.Fields{Address1: r.Address1, Zip: r.Zip}
	if r.Address2 != nil {
		f.Address2 = *r.Address2
	}
	if r.City != nil {
		f.City = *r.City
	}
	g, moved := adreswijzer.ReadFields(c, f, known)
	if !moved {
		return r, false
	}
	r.Address1, r.Zip = g.Address1, g.Zip
	r.Address2, r.City = optional(g.Address2), optional(g.City)
	return r, true
}

// optional is s as a request's optional field: nil when empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
