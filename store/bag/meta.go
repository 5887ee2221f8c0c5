package bag

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/adreswijzer/adreswijzer/store/internal/xmlscan"
)

const (
	nsSelecties  = "http://www.kadaster.nl/schemas/lvbag/extract-selecties/v20200601"
	nsGWRProduct = "www.kadaster.nl/schemas/lvbag/gem-wpl-rel/gwr-producten-lvc/v20200601"
	nsGWRTypes   = "www.kadaster.nl/schemas/lvbag/gem-wpl-rel/bag-types/v20200601"
)

// readLeveringsdocument takes from the delivery document what kind of delivery this is, its
// date or period, and the gemeenten it names.
func (d *delivery) readLeveringsdocument(f *zip.File) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	sc := xmlscan.New(io.LimitReader(rc, 1<<20))
	var (
		text             []byte
		lvc, mut         bool
		code, naam       string
		haveStand        bool
		haveFrom, haveTo bool
	)
	d.gemeenten = map[string]string{}
	for {
		tok, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch tok {
		case xmlscan.StartElement:
			text = text[:0]
			space, local := sc.Name()
			if string(space) != nsSelecties {
				continue
			}
			switch string(local) {
			case "LVC-Extract":
				lvc = true
			case "MUT-Extract":
				mut = true
			case "Gemeente":
				code, naam = "", ""
			}
		case xmlscan.Text:
			text = append(text, sc.Text()...)
		case xmlscan.EndElement:
			space, local := sc.Name()
			if string(space) != nsSelecties {
				continue
			}
			v := bytes.TrimSpace(text)
			var ok bool
			switch string(local) {
			case "StandTechnischeDatum":
				d.standDay, ok = parseDate(v)
				if !ok {
					return errors.New("malformed StandTechnischeDatum")
				}
				haveStand = true
			case "MutatiedatumVanaf":
				d.from, ok = parseDate(v)
				if !ok {
					return errors.New("malformed MutatiedatumVanaf")
				}
				haveFrom = true
			case "MutatiedatumTot":
				d.to, ok = parseDate(v)
				if !ok {
					return errors.New("malformed MutatiedatumTot")
				}
				haveTo = true
			case "GemeenteIdentificatie":
				code = string(v)
			case "GemeenteNaam":
				naam = string(v)
			case "Gemeente":
				if code != "" && naam != "" {
					d.gemeenten[code] = naam
				}
			}
			text = text[:0]
		}
	}
	switch {
	case lvc == mut:
		return errors.New("neither a stand (LVC-Extract) nor a mutation delivery (MUT-Extract)")
	case !haveStand:
		return errors.New("no StandTechnischeDatum")
	case mut && (!haveFrom || !haveTo):
		return errors.New("mutation delivery without Mutatieperiode")
	case mut && d.to < d.from:
		return errors.New("Mutatieperiode ends before it starts")
	}
	d.mutation = mut
	d.hasLevDoc = true
	return nil
}

// readGWR reads the gemeente-woonplaats relation (GEM-WPL-RELATIE): which gemeente each
// woonplaats belongs to on day t. Kadaster ships it beside every extract because the BAG
// itself registers no gemeenten.
func readGWR(f *zip.File, t date) (map[uint16]string, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	sc := xmlscan.New(rc)
	out := map[uint16]string{}
	var (
		text       []byte
		parent     string
		wpl        uint16
		gem        string
		begin, end date
	)
	for {
		tok, err := sc.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		switch tok {
		case xmlscan.StartElement:
			text = text[:0]
			space, local := sc.Name()
			if string(space) != nsGWRProduct {
				continue
			}
			switch string(local) {
			case "GemeenteWoonplaatsRelatie":
				wpl, gem, begin, end = 0, "", 0, 0
			case "gerelateerdeWoonplaats":
				parent = "gerelateerdeWoonplaats"
			case "gerelateerdeGemeente":
				parent = "gerelateerdeGemeente"
			}
		case xmlscan.Text:
			text = append(text, sc.Text()...)
		case xmlscan.EndElement:
			v := bytes.TrimSpace(text)
			text = text[:0]
			space, local := sc.Name()
			switch string(space) {
			case nsGWRTypes:
				switch string(local) {
				case "begindatumTijdvakGeldigheid":
					begin, _ = parseDate(v)
				case "einddatumTijdvakGeldigheid":
					end, _ = parseDate(v)
				}
			case nsGWRProduct:
				switch string(local) {
				case "identificatie":
					switch parent {
					case "gerelateerdeWoonplaats":
						wpl, _ = parseWPL(v)
					case "gerelateerdeGemeente":
						gem = string(v)
					}
				case "GemeenteWoonplaatsRelatie":
					if wpl != 0 && gem != "" && begin != 0 && begin <= t && (end == 0 || end > t) {
						out[wpl] = gem
					}
				}
			}
		}
	}
}
