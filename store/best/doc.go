// Package best imports BeST Address, the Belgian federal address register that FPS BOSA compiles
// from the three regional registers (UrbIS for Brussels, CRAB/Adressenregister for Flanders,
// ICAR for Wallonia), into adreswijzer.Address values for a store's DatasetWriter.
//
// BOSA publishes the same content in several shapes and the project meets all of them: its own
// PostGIS load layout is the only real BeST data we have to test with, the official CSV is what
// most people download, and the XML full download is the authoritative publication. Import takes
// files, directories or zip archives and recognises each file by its name, or for an unusual
// name by its first line (CSV) or root element (XML). One import reads one format; a mix is
// refused, so no address can arrive twice.
//
// # BOSA load layout
//
// Five ';'-separated files without header, empty field = NULL, double quotes as PostgreSQL's
// COPY … CSV QUOTE '"' reads them (BOSA's postgis.sql loads them that way). All five are
// required; several files of one kind (addresses_part1.csv, addresses_part2.csv) are read in turn.
//
//	addresses*.csv          identifier;mIdentifier;mpIdentifier;sIdentifier;pIdentifier;housenumber;boxnumber;
//	                        officiallyAssigned;status;validFrom;validTo;beginLifeSpanVersion;endLifeSpanVersion;
//	                        point;positionGeometryMethod;positionSpecification;firstAddress
//	streets*.csv            identifier;mIdentifier;nameNL;nameFR;nameDE;homonymAddition;streetnameType;status;
//	                        validFrom;validTo;beginLifeSpanVersion;endLifeSpanVersion
//	municipalities*.csv     identifier;refnisCode;nameNL;nameFR;nameDE
//	municipalityparts*.csv  identifier;nameNL;nameFR;nameDE
//	postals*.csv            identifier;postalCode;nameNL;nameFR;nameDE
//
// Identifiers are "<prefix>/<objectIdentifier>/<version>": BA, BS, BM, BP for a Brussels address,
// street, municipality and postal info, VA, VS, VM, VP for Flanders, WA, WS, WM, WMP, WP for
// Wallonia ("BA/110975/2", "VA/206000/2013-10-05T15:58:31.813"). A row with the wrong number of
// fields is skipped as "malformed row" and listed in the warnings by line number.
//
// # Official CSV
//
// openaddress-be{bru,vlg,wal}.csv, also inside a zip: comma-separated, one header line, no
// quoting (a '"' is an ordinary character: real Brussels street names contain them). Columns are
// matched by name, in any order, case-insensitively. The header BOSA writes is
//
//	EPSG:31370_x,EPSG:31370_y,EPSG:4326_lat,EPSG:4326_lon,address_id,box_number,house_number,
//	municipality_id,municipality_name_de,municipality_name_fr,municipality_name_nl,postcode,
//	postname_fr,postname_nl,street_id,streetname_de,streetname_fr,streetname_nl,region_code,status
//
// and BOSA announced EPSG:3812_x/EPSG:3812_y (Lambert 2008) in place of the EPSG:31370 pair.
// Positions are not imported, so either pair or none is accepted. Every other column above is
// required except municipality_id and region_code (the file name then gives the region); unknown
// columns are ignored with a warning. A row whose field count differs from the header's (a comma
// inside a name, which this format cannot carry) is skipped as "malformed row".
// address_id and street_id are bare object identifiers; region_code (BE-BRU, BE-VLG, BE-WAL)
// supplies the prefix, so an address gets the same id as from the other formats.
// The file has no dates: validTo is unknown, nothing counts as ended, and the dataset date must
// come from Options.Date (else the file modification time is used, with a warning).
//
// # Official XML full download
//
// {Brussels,Flanders,Wallonia}{Address,Streetname,Municipality,PartOfMunicipality,Postalinfo}*.xml,
// for example BrusselsAddress20190619L72.xml, also inside a zip. Address, Streetname,
// Municipality and Postalinfo files are required; PartOfMunicipality files exist for Wallonia
// only and are optional. Each file is streamed record by record:
//
//	root     tns:addressResponseBySource | tns:streetNameResponseBySource | tns:municipalityResponseBySource |
//	         tns:partOfMunicipalityResponseBySource | tns:postalInfoResponseBySource,
//	         with tns:source and tns:timestamp children
//	records  tns:address | tns:streetName | tns:municipality | tns:partOfMunicipality | tns:postalInfo,
//	         with optional attributes beginLifeSpanVersion and endLifeSpanVersion
//	ids      com:code/{com:namespace, com:objectIdentifier, com:versionIdentifier}, and the same three
//	         children in the address references com:hasStreetName, com:hasMunicipality,
//	         com:hasPartOfMunicipality, com:hasPostalInfo
//	address  com:addressStatus/{com:status, com:validFrom, com:validTo}, com:houseNumber, com:boxNumber
//	         (com:position and com:officiallyAssigned are not imported)
//	names    com:name/{com:language (nl, fr, de), com:spelling}, repeated, in streets, municipalities,
//	         parts and postal infos; streets also have com:streetNameStatus/{com:status, com:validFrom}
//
// tns is http://fsb.belgium.be/mappingservices/FullDownload/v1_00 and is checked on roots and
// records. The children are matched by local name only, because their namespace has changed
// (com: = http://fsb.belgium.be/data/common; older files used the prefix add:). A postal info's
// objectIdentifier is its postcode. Namespaces are shortened to the load-layout prefixes with
// BOSA's own table (BE.BRUSSELS.BRIC.ADM.ADDR → BA, https://data.vlaanderen.be/id/adres → VA,
// geodata.wallonie.be/id/Address → WA, and so on); an unknown namespace stays in the id in full.
//
// # Mapping
//
// ID is the address identifier without version ("BA/110975"), StreetID likewise ("BS/4395");
// Street carries every language the register gives (Brussels streets have Dutch and French).
// HouseNumber is the leading number of the BeST house number and HouseNumberSuffix the rest as
// written ("104BIS" → 104 "BIS", "240/1" → 240 "/1", "2Bis" → 2 "Bis"); Box is the box number as
// written ("b001", "0001"). Locality is the postal name of the postcode (Brussels and Flanders),
// else the part of municipality (Wallonia), else the municipality. SubMunicipality is the part of
// municipality; the Walloon official CSV carries it in postname_fr.
//
// Status current becomes StatusInUse; proposed and reserved become StatusPlanned (BOSA's own
// converter keeps reserved addresses too). Skipped, with the reason counted in Result.Skipped:
// "retired"; "ended" (validTo or endLifeSpanVersion on or before Options.Date, or before the
// import when no date is given); "unknown status"; "street missing" and "municipality missing"
// (a reference the input does not resolve); "house number invalid" (no leading digit, zero, more
// than six digits); "postcode missing" and "postcode invalid" (not four digits); "invalid date";
// "malformed row". A missing part of municipality or postal info only costs names and is
// counted in a warning.
//
// # Dataset date
//
// The version is "best:<date>", the date taken from, in order: Options.Date; the newest XML root
// timestamp; the newest validFrom or beginLifeSpanVersion of the address and street records that
// is not after the import (the real sample gives 2021-10-20); the newest modification time of
// the input files, with a warning, since it says when the files were copied rather than what
// state of the register they hold.
//
// Nothing here logs: the caller gets counts and warnings in the Result, and neither they nor
// any error carry an address, only file names, line numbers and field names.
package best
