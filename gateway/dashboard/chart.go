package dashboard

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

// Chart geometry, in the SVG's own units; it scales to the page's width.
const (
	chartW, chartH  = 720, 220
	chartLeft       = 48
	chartBottom     = 28
	chartTop        = 12
	chartLabelEvery = 5
)

// chart draws the calls and the verifications per day as an SVG bar chart, on the server:
// it needs no script, reads at a glance, and carries a text label for screen readers and a
// title per day. The calls stand behind, light; the verifications, the bill, in front.
func chart(days []dayRow, t func(string) string, month, lang string) template.HTML {
	var topCalls, topVerif int64
	for _, d := range days {
		topCalls = max(topCalls, d.Calls)
		topVerif = max(topVerif, d.Verifications)
	}
	scale := niceCeil(max(topCalls, topVerif))
	plotW := float64(chartW - chartLeft - 8)
	plotH := float64(chartH - chartTop - chartBottom)
	slot := plotW / float64(len(days))
	height := func(v int64) float64 { return plotH * float64(v) / float64(scale) }
	esc := template.HTMLEscapeString
	var b strings.Builder
	label := fmt.Sprintf(t("usage.chartlabel"), month, formatNumber(topCalls, lang), formatNumber(topVerif, lang))
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, chartW, chartH, esc(label))
	lines := gridLines(scale)
	for i := int64(0); i <= lines; i++ {
		y := float64(chartTop) + plotH - plotH*float64(i)/float64(lines)
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, chartLeft, chartW-8, y, y)
		fmt.Fprintf(&b, `<text class="axis" x="%d" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, y+4, esc(formatNumber(scale*i/lines, lang)))
	}
	base := float64(chartTop) + plotH
	for i, d := range days {
		x := float64(chartLeft) + slot*float64(i)
		day, _ := time.Parse(time.DateOnly, d.Day)
		title := fmt.Sprintf("%s: %s %s, %s %s", formatDate(day, lang, false), formatNumber(d.Calls, lang),
			strings.ToLower(t("usage.calls")), formatNumber(d.Verifications, lang), t("usage.verifications"))
		fmt.Fprintf(&b, `<g><title>%s</title>`, esc(title))
		hc, hv := height(d.Calls), height(d.Verifications)
		fmt.Fprintf(&b, `<rect class="calls" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, x+slot*0.1, base-hc, slot*0.8, max(hc, 0.5))
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, x+slot*0.25, base-hv, slot*0.5, max(hv, 0.5))
		b.WriteString(`</g>`)
		if (i+1)%chartLabelEvery == 0 || i == 0 {
			fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%d" text-anchor="middle">%d</text>`, x+slot*0.5, chartH-8, i+1)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text in it is escaped above
}

// niceCeil rounds a chart's top up to 1, 2 or 5 times a power of ten (at least 5), so
// that the grid lines fall on round numbers.
func niceCeil(n int64) int64 {
	if n <= 5 {
		return 5
	}
	p := int64(1)
	for p*10 < n {
		p *= 10
	}
	for _, m := range []int64{1, 2, 5} {
		if m*p >= n {
			return m * p
		}
	}
	return 10 * p
}

// gridLines divides a top from niceCeil into whole steps: fifths of 5, 10, 50..., quarters
// of 20, 200...
func gridLines(top int64) int64 {
	if top%5 == 0 {
		return 5
	}
	return 4
}
