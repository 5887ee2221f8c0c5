// Package bag imports the Dutch addresses from Kadaster's BAG 2.0 extract (LV BAG, XML in
// nested zips): a stand, municipal (BAGGEM0457L-15102021.zip) or national (BAGNLDL-…zip,
// lvbag-extract-nl.zip), with zero or more daily mutation deliveries (BAGNLDM-…zip) on top.
//
// # What is read
//
// The stand's Nummeraanduiding (NUM), OpenbareRuimte (OPR), Woonplaats (WPL),
// Verblijfsobject (VBO), Ligplaats (LIG) and Standplaats (STA) files, the mutation files
// (MUT), each delivery's Leveringsdocument (kind, date, gemeente) and GEM-WPL-RELATIE
// (woonplaats to gemeente). Pand files are never opened: buildings carry no address. Left
// out on purpose:
//
//   - InOnderzoek: marks attributes that the gemeente is investigating. The registered value
//     stays the authentic one until the investigation changes it (which then arrives as an
//     ordinary voorkomen), so the flag does not change whether an address exists.
//   - Inactief: voorkomens withdrawn from the object's life cycle by a correction. They are
//     no longer part of any state of the register.
//   - NietBag: objects and voorkomens declared not to belong in the BAG at all.
//   - IOMUT: the in-onderzoek side of the mutations, for the same reason as InOnderzoek.
//
// Should a voorkomen in the main files carry tijdstipInactief or tijdstipNietBagLV, it is
// dropped for the same reasons. Archiver junk (__MACOSX/, ._*, .DS_Store) is ignored.
//
// XML is read token by token with store/internal/xmlscan (encoding/xml's tokenizer was five
// sixths of the import time; xmlscan is checked against it by differential tests) and
// matched on namespace URIs exactly as Kadaster writes them (several lack "http://"); child
// order varies between object types, so values are found by element name and the top-level
// child they sit in, never by position. A nested zip needs random access: one stored without
// compression is read in place, a compressed one up to 64 MiB is read into memory, larger
// ones (the national NUM and VBO zips) are copied to a temporary file that is removed when
// the import ends, also on error or cancellation.
//
// # Which voorkomen counts
//
// A stand holds every voorkomen (version) of every object, history included. The version
// date is the stand's StandTechnischeDatum, or the end of the last mutation period applied.
// On that date a voorkomen is current when it is active (not inactive, not niet-BAG), its
// beginGeldigheid is on or before the date, and it has no eindGeldigheid or one after the
// date; without eindGeldigheid an eindRegistratie also ends it. Of the current voorkomens
// of one object the highest voorkomenidentificatie wins. Voorkomens that can never be
// current again are dropped while reading, so the tables hold about one record per object.
//
// A mutation's "wordt" voorkomen replaces the voorkomen with the same identificatie and
// voorkomenidentificatie, or adds it; deliveries apply in the order of their periods,
// whatever order they are given in. A mutation for an object outside the stand's area adds
// a record that gives no address unless its street and woonplaats are known.
//
// # From objects to addresses
//
// Every current Nummeraanduiding is a candidate. Its OpenbareRuimte gives the street (naam,
// verkorteNaam, identificatie), whose Woonplaats gives the locality; the Nummeraanduiding's
// own ligtIn overrides the street's woonplaats. Municipality is the gemeente name only
// when the Leveringsdocument names the gemeente (a municipal extract does) and
// GEM-WPL-RELATIE places the woonplaats in it on the version date; otherwise empty.
//
// The status comes from the Nummeraanduiding and from the current voorkomen of the
// objects that carry it as hoofdadres or nevenadres; when several do, the liveliest
// counts (in use, then planned, then withdrawn). Rules, checked in this order:
//
//	Object  Status                                        Address
//	NUM     Naamgeving ingetrokken                        skipped "withdrawn"
//	NUM     Naamgeving uitgegeven                         as its object says, below
//	VBO     Niet gerealiseerd verblijfsobject             skipped "object withdrawn"
//	VBO     Verblijfsobject ingetrokken                   skipped "object withdrawn"
//	VBO     Verblijfsobject ten onrechte opgevoerd        skipped "object withdrawn"
//	LIG/STA Plaats ingetrokken                            skipped "object withdrawn"
//	VBO     Verblijfsobject gevormd                       planned
//	(none)  no current object carries the NUM yet         planned
//	VBO     Verblijfsobject in gebruik                    in use
//	VBO     Verblijfsobject in gebruik (niet ingemeten)   in use
//	VBO     Verbouwing verblijfsobject                    in use (the object stands while rebuilt)
//	VBO     Verblijfsobject buiten gebruik                in use (the object and its address exist)
//	LIG/STA Plaats aangewezen                             in use
//	any     a status not listed here                      skipped "unknown status", with a warning
//
// "Buiten gebruik" and "verbouwing" stay deliverable on purpose: the address exists, and
// calling a real address undeliverable costs a shop a sale, while the reverse costs one
// returned parcel at worst. A withdrawn or "ten onrechte" street or woonplaats does not drop
// an address whose Nummeraanduiding is current: the register then contradicts itself and
// the address keeps the name it was issued under.
//
// After the status, an address is skipped as "malformed number" or "malformed postcode"
// when a value breaks the register's own pattern, "no postcode" when it has none (a form
// cannot ask for an address without one), "street missing" when its
// OpenbareRuimte has no current voorkomen in the delivery, "woonplaats missing" likewise.
// Voorkomens that are not the current one are counted as "superseded voorkomen",
// "replaced voorkomen" (the same voorkomen delivered again later, by a mutation or twice in
// a stand), "future voorkomen" or "inactive voorkomen", so that Kept plus all Skipped equals
// the Nummeraanduiding voorkomens read.
//
// # Memory
//
// Records are fixed-size structs in flat slices keyed by uint64 identificaties (16 digits
// fit): 48 bytes per Nummeraanduiding, 32 per Verblijfsobject, Ligplaats or Standplaats,
// nevenadressen in a side table, postcodes and toevoegingen packed into integers, names
// only for streets and woonplaatsen. The slices are sorted once and searched by binary
// search; no map holds millions of entries.
package bag
