package postgres

import "github.com/adreswijzer/adreswijzer"

// Lock keys, so tests can find the backend that holds a country's import lock.
var (
	LockClass   = lockClass
	CountryLock = func(c adreswijzer.Country) int32 { return countryLock(c) }
)
