package gateway

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// WriteHealthDown answers GET /health when no worker answered it in time: 503 with the
// health body (status degraded, database down), as the spec gives /health when the register
// is unreachable, so that monitors and load balancers read one shape whatever failed. No
// dataset is listed: none can be said to be served while no worker answers; the gateway's
// last known versions would pass for live ones.
func WriteHealthDown(w http.ResponseWriter, now time.Time) {
	body, _ := json.Marshal(adreswijzer.HealthResponse{Status: "degraded", Database: "down",
		Datasets: []adreswijzer.DatasetStatus{}, CheckedAt: now.UTC().Format(time.RFC3339)}) // plain values; cannot fail
	body = append(body, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(body)
}
