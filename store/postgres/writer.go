package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
)

// writer loads one dataset. It holds one connection for the whole import: the country's
// advisory lock is a session lock on it, so the lock goes away with the connection when the
// import process dies. Addresses are copied in batches by a goroutine while the importer keeps
// parsing, so COPY and parsing overlap.
type writer struct {
	s       *Store
	country adreswijzer.Country
	conn    *pgxpool.Conn
	id      int64
	schema  string
	done    bool

	cb    *memory.CatalogBuilder
	areas map[area]int32
	area  []area
	n     int64

	batch   []addressRow
	batches chan []addressRow // to the copier
	closed  bool              // batches is closed
	free    chan []addressRow // back from the copier, for reuse
	copied  chan struct{}     // closed when the copier has stopped
	copyCtx context.Context
	cancel  context.CancelFunc

	mu      sync.Mutex
	copyErr error
}

type addressRow struct {
	postcode, suffix, addition, box, id string
	number, street, locality, area      int32
	status                              int16
}

var errFinished = errors.New("dataset writer already committed or aborted")

// Begin starts a dataset for the country in a fresh schema. It fails with ErrImportRunning
// while another import of the country runs, and removes what an interrupted import of the
// country left behind.
func (s *Store) Begin(ctx context.Context, c adreswijzer.Country) (adreswijzer.DatasetWriter, error) {
	if _, ok := s.active[c]; !ok {
		return nil, fmt.Errorf("begin dataset: unsupported country %q", c)
	}
	conn, err := s.primary.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin %s dataset: %w: %w", c, adreswijzer.ErrUnavailable, err)
	}
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", lockClass, countryLock(c)).Scan(&locked); err != nil {
		conn.Release()
		return nil, fmt.Errorf("begin %s dataset: lock: %w", c, err)
	}
	if !locked {
		conn.Release()
		return nil, fmt.Errorf("begin %s dataset: %w", c, ErrImportRunning)
	}
	w := &writer{s: s, country: c, conn: conn, cb: memory.NewCatalogBuilder(), areas: make(map[area]int32)}
	if err := w.start(ctx); err != nil {
		w.finish(err)
		return nil, fmt.Errorf("begin %s dataset: %w", c, err)
	}
	return w, nil
}

func (w *writer) start(ctx context.Context) error {
	if err := dropLoading(ctx, w.conn, w.country, w.s.log); err != nil {
		return fmt.Errorf("remove interrupted imports: %w", err)
	}
	err := w.conn.QueryRow(ctx, `
		WITH n AS (SELECT nextval(pg_get_serial_sequence('adreswijzer.datasets', 'id')) AS id)
		INSERT INTO adreswijzer.datasets (id, country, schema_name, state)
		SELECT id, $1, 'aw_ds_' || id, 'loading' FROM n
		RETURNING id, schema_name`, string(w.country)).Scan(&w.id, &w.schema)
	if err != nil {
		return fmt.Errorf("register dataset: %w", err)
	}
	if _, err := w.conn.Exec(ctx, datasetDDL(w.schema)); err != nil {
		return fmt.Errorf("create schema %s: %w", w.schema, err)
	}
	w.batches = make(chan []addressRow, 1)
	w.free = make(chan []addressRow, 2)
	w.copied = make(chan struct{})
	w.copyCtx, w.cancel = context.WithCancel(context.WithoutCancel(ctx))
	go w.copier()
	return nil
}

// dropLoading removes the datasets of a country that are still loading: the caller holds the
// country's lock, so their imports have died.
func dropLoading(ctx context.Context, conn *pgxpool.Conn, c adreswijzer.Country, log interface {
	Info(string, ...any)
}) error {
	rows, err := conn.Query(ctx, "SELECT id, schema_name FROM adreswijzer.datasets WHERE country = $1 AND state = 'loading'", string(c))
	if err != nil {
		return err
	}
	found, err := collectDatasets(rows)
	if err != nil {
		return err
	}
	for _, st := range found {
		if err := dropDataset(ctx, conn, st.id, st.schema); err != nil {
			return err
		}
		log.Info("removed an interrupted import", "country", string(c), "schema", st.schema)
	}
	return nil
}

type datasetRef struct {
	id     int64
	schema string
}

func collectDatasets(rows pgx.Rows) ([]datasetRef, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (datasetRef, error) {
		var d datasetRef
		err := r.Scan(&d.id, &d.schema)
		return d, err
	})
}

func dropDataset(ctx context.Context, conn *pgxpool.Conn, id int64, schema string) error {
	if _, err := conn.Exec(ctx, dropSchemaSQL(schema)); err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	if _, err := conn.Exec(ctx, "DELETE FROM adreswijzer.datasets WHERE id = $1", id); err != nil {
		return fmt.Errorf("forget dataset %d: %w", id, err)
	}
	return nil
}

// dropIfLoading drops a dataset this writer created unless it became active: a Commit whose
// activation reached the database but whose answer was lost must not take the new dataset away.
func dropIfLoading(ctx context.Context, conn *pgxpool.Conn, id int64, schema string) error {
	var state string
	err := conn.QueryRow(ctx, "SELECT state FROM adreswijzer.datasets WHERE id = $1", id).Scan(&state)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if state == stateActive || state == stateRetired {
		return nil
	}
	return dropDataset(ctx, conn, id, schema)
}

func (w *writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.copyErr
}

func (w *writer) fail(err error) {
	w.mu.Lock()
	if w.copyErr == nil {
		w.copyErr = err
	}
	w.mu.Unlock()
}

// copier COPYs each batch into the addresses table; after a failure it only drains.
func (w *writer) copier() {
	defer close(w.copied)
	table := pgx.Identifier{w.schema, "addresses"}
	for b := range w.batches {
		if w.failed() == nil {
			if _, err := w.conn.CopyFrom(w.copyCtx, table, addressColumns, &batchSource{rows: b, i: -1}); err != nil {
				w.fail(fmt.Errorf("copy addresses into %s: %w", w.schema, err))
			}
		}
		select {
		case w.free <- b[:0]:
		default:
		}
	}
}

// batchSource feeds one batch to COPY, reusing one value slice for every row.
type batchSource struct {
	rows []addressRow
	i    int
	vals [10]any
}

func (b *batchSource) Next() bool { b.i++; return b.i < len(b.rows) }
func (b *batchSource) Err() error { return nil }
func (b *batchSource) Values() ([]any, error) {
	r := &b.rows[b.i]
	b.vals = [10]any{r.postcode, r.number, r.suffix, r.addition, r.box, r.id, r.street, r.locality, r.area, r.status}
	return b.vals[:], nil
}

// Add queues one address for COPY. An error from an earlier COPY is returned here, so the
// importer stops soon after the database fails.
func (w *writer) Add(a adreswijzer.Address) error {
	if w.done {
		return errFinished
	}
	if err := w.failed(); err != nil {
		return err
	}
	if a.Country != "" && a.Country != w.country {
		return fmt.Errorf("add address: country %s in a %s dataset", a.Country, w.country)
	}
	if a.HouseNumber < 0 || a.HouseNumber > math.MaxInt32 {
		return fmt.Errorf("add address %s: house number out of range", a.ID)
	}
	if a.Status > adreswijzer.StatusRetired {
		return fmt.Errorf("add address %s: unknown status %d", a.ID, a.Status)
	}
	street, locality := w.cb.Add(&a)
	ar := area{muni: a.Municipality, sub: a.SubMunicipality}
	ai, ok := w.areas[ar]
	if !ok {
		ar = area{muni: w.cb.InternNames(ar.muni), sub: w.cb.InternNames(ar.sub)}
		ai = int32(len(w.area))
		w.area = append(w.area, ar)
		w.areas[ar] = ai
	}
	if w.batch == nil {
		select {
		case w.batch = <-w.free:
		default:
			w.batch = make([]addressRow, 0, w.s.opts.BatchSize)
		}
	}
	w.batch = append(w.batch, addressRow{
		postcode: a.Postcode, number: int32(a.HouseNumber), suffix: a.HouseNumberSuffix, addition: a.Addition,
		box: a.Box, id: a.ID, street: int32(street), locality: int32(locality), area: ai, status: int16(a.Status),
	})
	w.n++
	if len(w.batch) >= w.s.opts.BatchSize {
		return w.send()
	}
	return nil
}

func (w *writer) send() error {
	select {
	case w.batches <- w.batch:
		w.batch = nil
		return nil
	case <-w.copied:
		return w.failed()
	}
}

// Commit finishes the COPY, builds the indexes and activates the dataset in one transaction.
// Readers see the previous dataset until that transaction commits. After Commit, successful or
// not, the writer is finished; on failure its schema is dropped.
func (w *writer) Commit(ctx context.Context, v adreswijzer.DatasetVersion) (info adreswijzer.DatasetInfo, err error) {
	if w.done {
		return info, errFinished
	}
	w.done = true
	defer func() {
		if err != nil {
			err = fmt.Errorf("commit %s dataset %s: %w", w.country, v, err)
		}
		w.finish(err)
	}()
	if _, err := v.Parts(); err != nil {
		return info, err
	}
	if w.n == 0 {
		return info, errors.New("no addresses; refusing to replace the active dataset with an empty one")
	}
	if len(w.batch) > 0 {
		if err := w.send(); err != nil {
			return info, err
		}
	}
	close(w.batches)
	w.closed = true
	<-w.copied
	if err := w.failed(); err != nil {
		return info, err
	}
	if err := w.copyCatalog(ctx); err != nil {
		return info, err
	}
	if _, err := w.conn.Exec(ctx, "SET maintenance_work_mem = '256MB'"); err != nil {
		return info, fmt.Errorf("prepare index build: %w", err)
	}
	if _, err := w.conn.Exec(ctx, indexDDL(w.schema)); err != nil {
		return info, fmt.Errorf("build indexes: %w", err)
	}
	at, err := w.activate(ctx, v)
	if err != nil {
		return info, err
	}
	info = adreswijzer.DatasetInfo{Country: w.country, Version: v, ActivatedAt: at.UTC(), Addresses: int(w.n)}
	w.retireOld(ctx)
	// Serve it from this Store at once; other Stores follow within PollInterval.
	if err := w.s.refresh(ctx); err != nil {
		w.s.log.Warn("dataset activated but not yet loaded here", "country", string(w.country), "err", err)
	}
	return info, nil
}

func (w *writer) copyCatalog(ctx context.Context) error {
	cat := w.cb.Catalog()
	streets := cat.Streets
	_, err := w.conn.CopyFrom(ctx, pgx.Identifier{w.schema, "streets"}, streetColumns, pgx.CopyFromSlice(len(streets), func(i int) ([]any, error) {
		s := &streets[i]
		return []any{int32(i), s.RegisterID, s.Names.NL, s.Names.FR, s.Names.DE, s.Short, s.Municipality.NL, s.Municipality.FR, s.Municipality.DE}, nil
	}))
	if err != nil {
		return fmt.Errorf("copy streets: %w", err)
	}
	locs := cat.Localities
	_, err = w.conn.CopyFrom(ctx, pgx.Identifier{w.schema, "localities"}, localityColumns, pgx.CopyFromSlice(len(locs), func(i int) ([]any, error) {
		l := &locs[i]
		return []any{int32(i), l.Names.NL, l.Names.FR, l.Names.DE, l.Municipality.NL, l.Municipality.FR, l.Municipality.DE}, nil
	}))
	if err != nil {
		return fmt.Errorf("copy localities: %w", err)
	}
	_, err = w.conn.CopyFrom(ctx, pgx.Identifier{w.schema, "areas"}, areaColumns, pgx.CopyFromSlice(len(w.area), func(i int) ([]any, error) {
		a := &w.area[i]
		return []any{int32(i), a.muni.NL, a.muni.FR, a.muni.DE, a.sub.NL, a.sub.FR, a.sub.DE}, nil
	}))
	if err != nil {
		return fmt.Errorf("copy areas: %w", err)
	}
	places := cat.Places
	_, err = w.conn.CopyFrom(ctx, pgx.Identifier{w.schema, "places"}, placeColumns, pgx.CopyFromSlice(len(places), func(i int) ([]any, error) {
		return []any{places[i].Postcode, int32(places[i].Street), int32(places[i].Locality)}, nil
	}))
	if err != nil {
		return fmt.Errorf("copy places: %w", err)
	}
	return nil
}

// activate retires the country's active dataset and activates this one in one transaction.
func (w *writer) activate(ctx context.Context, v adreswijzer.DatasetVersion) (time.Time, error) {
	tx, err := w.conn.Begin(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("activate: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE adreswijzer.datasets SET state = 'retired' WHERE country = $1 AND state = 'active'", string(w.country)); err != nil {
		return time.Time{}, fmt.Errorf("retire the active dataset: %w", err)
	}
	var at time.Time
	err = tx.QueryRow(ctx, `UPDATE adreswijzer.datasets SET state = 'active', version = $2, activated_at = now(), addresses = $3
		WHERE id = $1 AND state = 'loading' RETURNING activated_at`, w.id, string(v), w.n).Scan(&at)
	if err != nil {
		return time.Time{}, fmt.Errorf("activate dataset %d: %w", w.id, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return time.Time{}, fmt.Errorf("activate: %w", err)
	}
	return at, nil
}

// retireOld drops the retired datasets of the country except the newest, which stays for
// Rollback. A failure leaves extra schemas behind and is only logged: the activation stands.
func (w *writer) retireOld(ctx context.Context) {
	if err := dropRetired(ctx, w.conn, w.country); err != nil {
		w.s.log.Warn("old datasets not dropped", "country", string(w.country), "err", err)
	}
}

func dropRetired(ctx context.Context, conn *pgxpool.Conn, c adreswijzer.Country) error {
	rows, err := conn.Query(ctx, `SELECT id, schema_name FROM adreswijzer.datasets
		WHERE country = $1 AND state = 'retired' ORDER BY activated_at DESC, id DESC OFFSET 1`, string(c))
	if err != nil {
		return err
	}
	found, err := collectDatasets(rows)
	if err != nil {
		return err
	}
	for _, o := range found {
		if err := dropDataset(ctx, conn, o.id, o.schema); err != nil {
			return err
		}
	}
	return nil
}

// Abort drops what was loaded. The active dataset was never touched.
func (w *writer) Abort(context.Context) error {
	if w.done {
		return nil
	}
	w.done = true
	w.finish(errors.New("aborted"))
	return nil
}

// finish ends the writer: it stops the copier, drops the schema unless the dataset was
// activated (err == nil), unlocks and returns the connection. It runs on a context of its own:
// the caller's may be what ended the import.
func (w *writer) finish(err error) {
	if w.batches != nil {
		if err != nil {
			w.cancel()
		}
		if !w.closed {
			close(w.batches)
			w.closed = true
		}
		<-w.copied
		w.cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err != nil && w.schema != "" {
		if derr := dropIfLoading(ctx, w.conn, w.id, w.schema); derr != nil {
			// The next Begin of the country removes it.
			w.s.log.Warn("interrupted import not removed", "country", string(w.country), "schema", w.schema, "err", derr)
		}
	}
	if _, uerr := w.conn.Exec(ctx, "SELECT pg_advisory_unlock($1, $2)", lockClass, countryLock(w.country)); uerr != nil {
		// A broken connection has lost its lock with its session; do not return it to the pool.
		w.conn.Conn().Close(ctx)
	}
	w.conn.Release()
	w.cb, w.areas, w.area, w.batch = nil, nil, nil, nil
}
