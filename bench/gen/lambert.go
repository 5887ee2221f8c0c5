package gen

import "math"

// Belgian Lambert 72 (EPSG:31370): Lambert conformal conic with two standard parallels on
// the International 1924 ellipsoid (EPSG guidance note 7-2, section 1.3.1.1).
const (
	l72A     = 6378388.0
	l72InvF  = 297.0
	l72Phi1  = (49 + 50.0/60 + 0.00204/3600) * math.Pi / 180
	l72Phi2  = (51 + 10.0/60 + 0.00204/3600) * math.Pi / 180
	l72Lam0  = (4 + 22.0/60 + 2.952/3600) * math.Pi / 180
	l72East  = 150000.013
	l72North = 5400088.438
)

var l72e, l72n, l72aF = func() (e, n, aF float64) {
	f := 1 / l72InvF
	e = math.Sqrt(2*f - f*f)
	m := func(phi float64) float64 { s := math.Sin(phi); return math.Cos(phi) / math.Sqrt(1-e*e*s*s) }
	t := func(phi float64) float64 {
		s := math.Sin(phi)
		return math.Tan(math.Pi/4-phi/2) / math.Pow((1-e*s)/(1+e*s), e/2)
	}
	n = (math.Log(m(l72Phi1)) - math.Log(m(l72Phi2))) / (math.Log(t(l72Phi1)) - math.Log(t(l72Phi2)))
	return e, n, l72A * m(l72Phi1) / (n * math.Pow(t(l72Phi1), n))
}()

// lambert72ToLatLon converts Lambert 72 metres to latitude and longitude in degrees on the
// Belgian datum. The shift from BD72 to WGS84 (about 100 m) is not applied: the positions
// are synthetic, and a consumer that needs metre accuracy reads the Lambert columns.
func lambert72ToLatLon(x, y float64) (lat, lon float64) {
	dx := x - l72East
	dy := l72North - y // rF is 0: the latitude of origin is the pole
	r := math.Sqrt(dx*dx + dy*dy)
	t := math.Pow(r/l72aF, 1/l72n)
	theta := math.Atan2(dx, dy)
	lam := theta/l72n + l72Lam0
	phi := math.Pi/2 - 2*math.Atan(t)
	for range 8 {
		s := math.Sin(phi)
		phi = math.Pi/2 - 2*math.Atan(t*math.Pow((1-l72e*s)/(1+l72e*s), l72e/2))
	}
	return phi * 180 / math.Pi, lam * 180 / math.Pi
}
