// Package gen writes national-size SYNTHETIC datasets in the official register formats, so
// that imports, stores and lookups can be benchmarked at the size of the real registers
// without the real deliveries (a national BAG extract is not in the samples, and no BeST
// CSV exists in them at all). Every file says it is synthetic: the NL archive is named
// BAGNLDL-ddmmyyyy-SYNTHETIC.zip and carries a note in its Leveringsdocument, an XML comment
// in every file and a zip comment; the BE files are named openaddress-be<region>-SYNTHETIC.csv.
//
// # What is real and what is not
//
// Names are real: Dutch street names are drawn from the national frequency list of public
// space names (a name that 510 public spaces carry, like Kerkstraat, is drawn 510 times as
// often as a unique one), woonplaats names from the national list (duplicates such as the
// four Alteveers included), gemeente codes from the CBS list. Belgian municipalities, postcodes,
// postal names and Walloon municipality parts come from BOSA's BeST dictionaries, street
// names from BOSA's test streets (Dutch and French in Brussels, Dutch in Flanders, French in
// Wallonia), house-number suffixes and box numbers from BOSA's national count of every
// distinct value. Everything else is invented: which street lies in which woonplaats, house
// numbers, postcodes, identificaties, coordinates, dates and statuses.
//
// # NL: a national LV BAG 2.0 extract
//
// The archive has Kadaster's national layout: Leveringsdocument-BAG-Extract.xml, the
// woonplaats-gemeente relation GEM-WPL-RELATIE-ddmmyyyy.zip, and one stored zip per object
// type, 9999{WPL,OPR,NUM,VBO,LIG,STA,PND}ddmmyyyy.zip, each holding
// 9999NUMddmmyyyy-000001.xml and on with at most 10,000 sl:stand records. Namespaces,
// prefixes, element names, child order and nesting are those of Kadaster's files (a test
// compares every element path with the Weesp extract). Two things could not be copied from
// a real national stand and are modelled on the national mutation delivery instead: the
// area is Gebied-NLD, and sl:gebied reads NEDERLAND. The InOnderzoek, Inactief and NietBag
// sub-deliveries are left out: they hold no addresses. Short street names (verkorteNaam)
// are made by a simplified NEN 5825.
//
// Proportions follow the national register, scaled to the requested number of
// Nummeraanduidingen N: N/4000 woonplaatsen (2,500 at ten million) in 342·N/10⁷ gemeenten,
// N/40 openbare ruimtes with heavy-tailed lengths (4 % without addresses), about 21.7
// addresses per six-position postcode (PostNL's letters, never F, I, O, Q, U, Y, nor SA, SD,
// SS) and 113 postcodes per four-digit area spread over 1000-9999. House numbers run along
// each street with gaps, 90 % at most 200; 7 % carry a huisletter, 8 % a toevoeging (1, 2,
// H, I, II, 101, ben, bov, BIS). About 2 % are planned (Verblijfsobject gevormd), 1 % have
// an ended voorkomen before the current one, 0.5 % are withdrawn, 0.1 % lost their object,
// 0.2 % have no postcode, 0.3 % are nevenadressen of the previous address's object, a few
// thousand are Ligplaatsen and Standplaatsen. NLStats says how many of each were written,
// which is exactly what an importer following the BAG rules must keep and skip.
//
// # BE: BeST Address in the official CSV
//
// openaddress-be{bru,vlg,wal}-SYNTHETIC.csv with BOSA's header, unquoted and
// comma-separated; the rows are split over the regions as in BOSA's full files (841,627 :
// 4,224,089 : 1,983,855), with their shares of rows with a box number (26.9, 29.9 and
// 20.9 %), some retired and proposed addresses in Brussels and Flanders and none in
// Wallonia, and a few Walloon rows without a position (0.00000). Commas inside real names
// (some Brussels postal names) are dropped, since the format cannot carry them. Latitude
// and longitude are the Lambert 72 position on the Belgian datum: the shift to WGS84 (about
// 100 m) is not applied.
//
// # Streaming and determinism
//
// Nothing national is held in memory: the plan keeps woonplaatsen and streets (a few tens
// of megabytes); addresses are regenerated from it by a walk for each object file, copied
// into batches of at most 10,000 records, rendered and compressed in parallel, and written
// to the zips in order as they come. All draws come from a splitmix64 generator seeded per
// purpose (street, record, region) and use integer arithmetic only, so the same seed gives
// byte-identical files whatever the number of workers. The one exception is the latitude
// and longitude of the Belgian CSV, computed in floating point, whose last printed digit
// could in principle differ between processor architectures.
package gen
