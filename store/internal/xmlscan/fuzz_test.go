package xmlscan

import (
	"slices"
	"strings"
	"testing"
)

// bestRecord is shaped like a record of BOSA's BeST full download, with the real first
// Brussels address (BA/110975, Heerlijkheidsstraat 138) of the samples.
const bestRecord = `<?xml version="1.0" encoding="utf-8"?>
<tns:addressResponseBySource xmlns:com="http://fsb.belgium.be/data/common" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:tns="http://fsb.belgium.be/mappingservices/FullDownload/v1_00">
  <tns:source>bosa</tns:source>
  <tns:timestamp>2021-10-22T09:00:00+02:00</tns:timestamp>
  <tns:address beginLifeSpanVersion="2000-01-01T00:00Z"><com:code><com:namespace>BE.BRUSSELS.BRIC.ADM.ADDR</com:namespace><com:objectIdentifier>110975</com:objectIdentifier><com:versionIdentifier>2</com:versionIdentifier></com:code><com:position><com:pointGeometry><com:point><com:pos axisLabels="x y" srsDimension="2" srsName="http://www.opengis.net/def/crs/EPSG/0/31370" uomLabels="m m">153478.05 177432.30</com:pos></com:point></com:pointGeometry></com:position><com:addressStatus><com:status>current</com:status><com:validFrom>2000-01-01T00:00Z</com:validFrom></com:addressStatus><com:houseNumber>138</com:houseNumber><com:officiallyAssigned>true</com:officiallyAssigned><com:hasStreetName><com:namespace>BE.BRUSSELS.BRIC.ADM.STR</com:namespace><com:objectIdentifier>2855</com:objectIdentifier><com:versionIdentifier>2</com:versionIdentifier></com:hasStreetName><com:hasMunicipality><com:namespace>BE.BRUSSELS.BRIC.ADM.MUNICIPALITY</com:namespace><com:objectIdentifier>21004</com:objectIdentifier></com:hasMunicipality><com:hasPostalInfo><com:namespace>BE.BRUSSELS.BRIC.ADM.PZ</com:namespace><com:objectIdentifier>1130</com:objectIdentifier></com:hasPostalInfo></tns:address>
  <tns:streetName><com:code><com:namespace>BE.BRUSSELS.BRIC.ADM.STR</com:namespace><com:objectIdentifier>2855</com:objectIdentifier></com:code><com:name><com:language>nl</com:language><com:spelling>Heerlijkheidsstraat</com:spelling></com:name><com:name><com:language>fr</com:language><com:spelling>Rue de la Seigneurie</com:spelling></com:name></tns:streetName>
</tns:addressResponseBySource>
`

// FuzzTokens compares the Scanner with encoding/xml on the same input, read whole and in
// small pieces, with and without skipping subtrees (the second argument picks which). See
// compare for what counts as a difference. Seeded with slices of the real BAG files and a
// BeST-shaped document.
func FuzzTokens(f *testing.F) {
	for _, delivery := range []string{"BAGGEM0457L-15102021.zip", "BAGNLDM-13112021-14112021.zip", "BAGNLDL-15092020-small.zip"} {
		m := sampleXML(f, delivery)
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			b := m[n]
			f.Add(b[:min(len(b), 3000)], uint8(0))
			// A whole record from the middle of the larger files.
			if i := strings.Index(string(b[len(b)/2:]), "<sl:stand>"); i >= 0 {
				mid := b[len(b)/2+i:]
				f.Add(mid[:min(len(mid), 2500)], uint8(3))
			}
		}
	}
	f.Add([]byte(bestRecord), uint8(0))
	f.Add([]byte(bestRecord), uint8(4))
	for _, s := range []string{
		`<a xmlns="u1"><b/><c xmlns="u2"><d/></c><e xmlns=""/></a>`,
		`<p:a p:x="1" xmlns:p="u"/>`, `<a xml:lang="nl"/>`,
		`<a x="&lt;&gt;&amp;&apos;&quot;">&#65;&#x42;&#x1F600;</a>`,
		`<a>x<![CDATA[<b>&amp;]]]]><![CDATA[>]]>y</a>`,
		`<!-- <a> --><?pi <b>?><a><!---->t<?x?>u</a>`,
		"<a x=\"1\r\n2\r3\">a\r\nb\rc\r\n</a>",
		"\uFEFF<?xml version='1.0'?><a/>",
		`<!DOCTYPE a><a/>`, `<p:a/>`, `<a>&#xD800;</a>`, `<a>]]></a>`,
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, skip uint8) {
		if err := compare(data, skipRule(skip%6)); err != nil {
			t.Fatalf("%v\ninput %q", err, data)
		}
	})
}
