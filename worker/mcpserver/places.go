package mcpserver

import (
	"context"

	"github.com/adreswijzer/adreswijzer"
)

// knownPlace returns what the splitter asks about place names: whether any loaded register
// has a place so named, as validation recognises a typed city. The registers' answers are
// taken once per call, since the splitter asks about every trailing word group of a line. A
// register that is not loaded knows no place.
func (s *service) knownPlace(ctx context.Context) adreswijzer.PlaceKnown {
	var known []func(string) bool
	for _, c := range adreswijzer.Countries {
		if f, err := s.engine.PlaceNames(ctx, c); err == nil {
			known = append(known, f)
		}
	}
	return func(name string) bool {
		for _, f := range known {
			if f(name) {
				return true
			}
		}
		return false
	}
}

// knowsCity reports whether the active register of c has a place of the name.
func (s *service) knowsCity(ctx context.Context, c adreswijzer.Country, city string) bool {
	f, err := s.engine.PlaceNames(ctx, c)
	return err == nil && f(city)
}
