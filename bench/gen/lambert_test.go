package gen

import (
	"math"
	"testing"
)

// The projection must reproduce the worked example of EPSG guidance note 7-2 for Belgian
// Lambert 72 (50°40'46.461"N 5°48'26.533"E is E 251763.20, N 153034.13), and points on the
// false easting must lie on the central meridian 4°22'02.952"E.
func TestLambert72(t *testing.T) {
	lat, lon := lambert72ToLatLon(251763.20, 153034.13)
	wantLat, wantLon := 50+40.0/60+46.461/3600, 5+48.0/60+26.533/3600
	if math.Abs(lat-wantLat) > 2e-5 || math.Abs(lon-wantLon) > 2e-5 {
		t.Errorf("EPSG example: %.6f %.6f, want %.6f %.6f", lat, lon, wantLat, wantLon)
	}
	for _, y := range []float64{30000, 170000, 240000} {
		if _, lon := lambert72ToLatLon(l72East, y); math.Abs(lon-(4+22.0/60+2.952/3600)) > 1e-9 {
			t.Errorf("x = false easting, y = %.0f: longitude %.9f", y, lon)
		}
	}
}
