//! Sequences of *records of numbers* in one copy: `Vec<[f32; 3]>`,
//! `Vec<[[f64; 4]; 4]>`, and user structs registered with [`register`].
//!
//! The bytes are those of chapter 3: a `u32` count, then each record's
//! numbers in order, with no count or tag inside a record. When a record
//! type's memory on a little-endian host *is* that encoding (no padding,
//! fields in declaration order, every bit pattern valid: `bytemuck::Pod`),
//! a sequence of it is written and read with one copy, like a block of
//! numbers (see [`crate::block`], which this module extends). Which path ran
//! is never visible in the bytes.
//!
//! Kiln recognises the sequence by the [`TypeId`] of what serde hands it,
//! looked up in a table of *layouts*:
//!
//! * fixed arrays of the twelve element types, `[E; N]` for `N` in 1 to 16,
//!   20, 24 and 32, and `[[E; M]; N]` for `M` and `N` in 2 to 4, are in the
//!   table from the start: nothing to register;
//! * any other `Pod` type is added by [`register`], which first checks, on
//!   test patterns, that serde's element-by-element bytes of the type are
//!   its memory both ways; a type that fails keeps the element path.
//!
//! A layout is used only where the element-by-element reading could not
//! fail: for the whole sequence when it is in the input at hand (a slice,
//! or the part of a stream already buffered: [`crate::read::Read::peek`]),
//! and for the whole records that arrive from a stream within its byte
//! limit ([`read_streamed`]); and only where the depth limit leaves room
//! for a record's own nesting. Anywhere else (the records after a stream
//! ended or reached its limit, a sequence cut short in a slice, a depth
//! limit reached) the element path runs and reports exactly what it always
//! reports. Under a frame's schema guard, registered structs
//! take the element path, so that the guard sees every struct it checks.
//! On a big-endian host the table is never consulted, and [`register`]
//! only checks the size.

use std::any::TypeId;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::{Mutex, OnceLock};

use bytemuck::Pod;
use serde::Serialize;
use serde::de::{DeserializeOwned, Visitor};

use crate::error::Result;

use super::probe_vec_visitor;

/// How a sequence of one record type is written and read in one copy.
pub(crate) struct Layout {
    /// Bytes per record: `size_of` of the type, which is also its encoding.
    pub(crate) size: usize,
    /// Nesting levels the element path enters inside one record (its
    /// `max_depth` need): 1 for `[f32; 3]` or a flat struct.
    pub(crate) depth: u32,
    /// Whether its `Serialize` names containers that a frame's schema
    /// guard checks (a registered struct); arrays name none.
    pub(crate) named: bool,
    /// The id of `Vec<X>`, which the visitor's value must have.
    owned: TypeId,
    /// The visitor `Vec<X>::deserialize` uses, found on first use.
    visitor: OnceLock<Option<TypeId>>,
    probe: fn() -> Option<TypeId>,
    /// Pointer and length in bytes of the slice behind a `&[X]`.
    slice_bytes: unsafe fn(*const ()) -> (*const u8, usize),
    /// Pointer and length in bytes of the elements behind a `&Vec<X>`.
    vec_bytes: unsafe fn(*const ()) -> (*const u8, usize),
    /// Writes a `Vec<X>` of the whole records in `bytes` to the pointer.
    build: unsafe fn(&[u8], *mut ()),
    /// Reads records from a stream into a `Vec<X>` at the pointer
    /// ([`read_streamed`]).
    stream: unsafe fn(usize, Fill<'_>, *mut ()) -> Result<Streamed>,
    /// Moves the `Vec<X>` at the second pointer to the end of the one at
    /// the first.
    append: unsafe fn(*mut (), *mut ()),
}

impl Layout {
    fn of<X: Pod + DeserializeOwned>(depth: u32, named: bool) -> Layout {
        Layout {
            size: std::mem::size_of::<X>(),
            depth,
            named,
            owned: TypeId::of::<Vec<X>>(),
            visitor: OnceLock::new(),
            probe: probe_vec_visitor::<X>,
            slice_bytes: slice_bytes::<X>,
            vec_bytes: vec_bytes::<X>,
            build: build_vec::<X>,
            stream: stream_vec::<X>,
            append: append_vec::<X>,
        }
    }

    /// The keys this layout is found by: the two types serde hands to
    /// `collect_seq` for `[X]` and `Vec<X>`, and the vector read back.
    fn keys<X: 'static>() -> [(TypeId, Role); 3] {
        [
            (TypeId::of::<&'static [X]>(), Role::Slice),
            (TypeId::of::<&'static Vec<X>>(), Role::VecRef),
            (TypeId::of::<Vec<X>>(), Role::Owned),
        ]
    }

    fn visitor(&self) -> Option<TypeId> {
        *self.visitor.get_or_init(self.probe)
    }
}

/// What a key's type is: the input of `collect_seq` or the value read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// `&[X]`.
    Slice,
    /// `&Vec<X>`.
    VecRef,
    /// `Vec<X>`.
    Owned,
}

/// # Safety
/// `p` points to a live `&[X]`; the result is valid while its referent is.
unsafe fn slice_bytes<X: Pod>(p: *const ()) -> (*const u8, usize) {
    // SAFETY: the caller guarantees `p` points to a `&[X]`.
    let slice: &[X] = unsafe { *p.cast::<&[X]>() };
    let bytes: &[u8] = bytemuck::cast_slice(slice);
    (bytes.as_ptr(), bytes.len())
}

/// # Safety
/// `p` points to a live `&Vec<X>`; the result is valid while the vector is.
unsafe fn vec_bytes<X: Pod>(p: *const ()) -> (*const u8, usize) {
    // SAFETY: the caller guarantees `p` points to a `&Vec<X>`.
    let vec: &Vec<X> = unsafe { *p.cast::<&Vec<X>>() };
    let bytes: &[u8] = bytemuck::cast_slice(vec.as_slice());
    (bytes.as_ptr(), bytes.len())
}

/// # Safety
/// `out` is valid for writing a `Vec<X>`.
unsafe fn build_vec<X: Pod>(bytes: &[u8], out: *mut ()) {
    let size = std::mem::size_of::<X>();
    let n = bytes.len() / size;
    let mut vec = Vec::<X>::with_capacity(n);
    // SAFETY: the vector owns room for `n` records, `n * size <= bytes.len()`
    // bytes, valid for writes and not overlapping the input. Every bit
    // pattern is a valid `X` (`Pod`), so the first `n` records are
    // initialised once copied and `set_len(n)` exposes only those.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), vec.as_mut_ptr().cast::<u8>(), n * size);
        vec.set_len(n);
    }
    // SAFETY: the caller guarantees `out` may be written as a `Vec<X>`.
    unsafe { out.cast::<Vec<X>>().write(vec) };
}

/// Fills a vector's spare capacity from a stream
/// ([`crate::read::Read::read_up_to`]); returns the bytes written, from the
/// start.
type Fill<'f> = &'f mut dyn for<'d> FnMut(&'d mut [MaybeUninit<u8>]) -> Result<&'d mut [u8]>;

/// What [`Layout::stream`] read: `records` whole ones, then the `partial`
/// bytes of the next one when the stream ended inside it.
pub(crate) struct Streamed {
    pub(crate) records: usize,
    pub(crate) partial: Vec<u8>,
}

/// # Safety
/// `out` is valid for writing a `Vec<X>`; it is written unless `fill` fails.
unsafe fn stream_vec<X: Pod>(count: usize, fill: Fill<'_>, out: *mut ()) -> Result<Streamed> {
    let size = std::mem::size_of::<X>();
    let mut vec = Vec::<X>::new();
    let mut partial = Vec::new();
    super::grow_in_steps(&mut vec, count, |room, _| {
        let wanted = room.len();
        let written = fill(room)?;
        if written.len() < wanted {
            // The bytes of the record the stream ended inside, which the
            // element path reads again.
            partial.extend_from_slice(&written[written.len() / size * size..]);
        }
        Ok(written)
    })?;
    let records = vec.len();
    // SAFETY: the caller guarantees `out` may be written as a `Vec<X>`.
    unsafe { out.cast::<Vec<X>>().write(vec) };
    Ok(Streamed { records, partial })
}

/// # Safety
/// Both pointers point to live `Vec<X>`s; the second is moved out of.
unsafe fn append_vec<X: Pod>(to: *mut (), rest: *mut ()) {
    // SAFETY: the caller guarantees both are `Vec<X>`, and that `rest` is
    // not used again: it is read out here and dropped, empty.
    unsafe {
        let mut rest = rest.cast::<Vec<X>>().read();
        (*to.cast::<Vec<X>>()).append(&mut rest);
    }
}

/// Reads `count` records of `layout` from a stream with `fill` (see
/// [`crate::read::Read::read_up_to`]) into `Out`, which must be the
/// layout's `Vec<X>` (as [`for_visitor`] found). Returns the vector of
/// the whole records that arrived (all `count` unless the stream ended)
/// and the bytes of a record it ended inside; `None` if `Out` is not the
/// layout's vector.
pub(crate) fn read_streamed<Out>(
    layout: &Layout,
    count: usize,
    fill: Fill<'_>,
) -> Result<Option<(Out, Streamed)>> {
    if typeid::of::<Out>() != layout.owned {
        return Ok(None);
    }
    let mut out = MaybeUninit::<Out>::uninit();
    // SAFETY: `Out` has the id of `Vec<X>` for the layout's `X` (see
    // `build`), so `out` may be written as one; `stream` writes it
    // whenever it returns `Ok`.
    unsafe {
        let streamed = (layout.stream)(count, fill, out.as_mut_ptr().cast::<()>())?;
        Ok(Some((out.assume_init(), streamed)))
    }
}

/// Moves the records of `rest` to the end of `to`; both are the layout's
/// `Vec<X>` (as [`read_streamed`] checked).
pub(crate) fn append<Out>(layout: &Layout, to: &mut Out, rest: Out) {
    assert_eq!(typeid::of::<Out>(), layout.owned, "not the layout's vector");
    let mut rest = std::mem::ManuallyDrop::new(rest);
    // SAFETY: both are `Vec<X>` (checked above); `append_vec` moves `rest`
    // out, and the `ManuallyDrop` keeps it from being dropped here too.
    unsafe {
        (layout.append)(
            (to as *mut Out).cast::<()>(),
            (&mut *rest as *mut Out).cast::<()>(),
        );
    }
}

// ----- the table ------------------------------------------------------------

/// Hashes a [`TypeId`], which is a hash already, by keeping its bits.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

type Table = HashMap<TypeId, (&'static Layout, Role), BuildHasherDefault<IdHasher>>;

/// The one table of layouts: the element-type arrays, built on first use,
/// and every registered type. Null until first used. Each registration
/// publishes a new table; the old one is left allocated, since a reader
/// may still hold it (registration is a start-up step: a few tables of a
/// few hundred entries). One table, so that a lookup, which every
/// `Vec<X>` read or written pays, is one probe.
static TABLE: AtomicPtr<Table> = AtomicPtr::new(std::ptr::null_mut());
/// Every table published, in order: serialises registrations, and keeps
/// the tables a registration replaced reachable (a reader may still hold
/// one; they are never freed, and a leak checker need not report them).
static PUBLISHED: Mutex<Vec<&'static Table>> = Mutex::new(Vec::new());
/// Set by [`element_path_only`].
static ELEMENT_PATH_ONLY: AtomicBool = AtomicBool::new(false);

fn insert<X: Pod + DeserializeOwned>(table: &mut Table, depth: u32, named: bool) {
    let layout: &'static Layout = Box::leak(Box::new(Layout::of::<X>(depth, named)));
    for (id, role) in Layout::keys::<X>() {
        table.insert(id, (layout, role));
    }
}

macro_rules! arrays_of {
    ($table:ident, $t:ty) => {
        arrays_of!(@one $table, $t; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 20 24 32);
        arrays_of!(@two $table, $t; 2 3 4);
    };
    (@one $table:ident, $t:ty; $($n:literal)*) => {
        $(insert::<[$t; $n]>(&mut $table, 1, false);)*
    };
    (@two $table:ident, $t:ty; $($n:literal)*) => {
        $(arrays_of!(@rows $table, $t, $n; 2 3 4);)*
    };
    (@rows $table:ident, $t:ty, $n:literal; $($m:literal)*) => {
        $(insert::<[[$t; $m]; $n]>(&mut $table, 2, false);)*
    };
}

/// The published table, built with the arrays if it is not there yet.
#[inline]
fn table() -> &'static Table {
    let current = TABLE.load(Ordering::Acquire);
    if current.is_null() {
        return first_table();
    }
    // SAFETY: a non-null pointer in `TABLE` comes from `Box::into_raw` in
    // `publish` and is never freed, so it is valid for `'static`; tables
    // are never written after they are published.
    unsafe { &*current }
}

/// Builds and publishes the table of arrays, unless a racing thread did.
#[cold]
fn first_table() -> &'static Table {
    let mut published = PUBLISHED.lock().unwrap_or_else(|e| e.into_inner());
    let current = TABLE.load(Ordering::Acquire);
    if !current.is_null() {
        // SAFETY: as in `table`.
        return unsafe { &*current };
    }
    let mut table = Table::default();
    macro_rules! each {
        ($($t:ident $variant:ident $code:literal,)*) => {$(arrays_of!(table, $t);)*};
    }
    crate::dtype::with_dtypes!(each);
    publish(&mut published, table)
}

/// Makes `table` the one lookups see, keeping it in `published` (the
/// guard of [`PUBLISHED`], held by the caller).
fn publish(published: &mut Vec<&'static Table>, table: Table) -> &'static Table {
    let leaked = Box::into_raw(Box::new(table));
    TABLE.store(leaked, Ordering::Release);
    // SAFETY: just leaked, never freed.
    let table = unsafe { &*leaked };
    published.push(table);
    table
}

#[inline]
fn lookup(id: TypeId) -> Option<(&'static Layout, Role)> {
    if cfg!(target_endian = "big") || ELEMENT_PATH_ONLY.load(Ordering::Relaxed) {
        return None;
    }
    table().get(&id).copied()
}

/// Sees the input of `collect_seq` as the bytes of a sequence of records,
/// when its type is `&[X]` or `&Vec<X>` of a known layout. `guarded`: a
/// schema guard is on, so registered structs take the element path.
#[inline]
pub(crate) fn seq_bytes<I>(value: &I, guarded: bool) -> Option<(&'static Layout, &[u8])> {
    let (layout, role) = lookup(typeid::of::<I>())?;
    if guarded && layout.named {
        return None;
    }
    let bytes_of = match role {
        Role::Slice => layout.slice_bytes,
        Role::VecRef => layout.vec_bytes,
        Role::Owned => return None,
    };
    // SAFETY: `typeid::of` erases only lifetimes, and the key was made from
    // `&'static [X]` (or `&'static Vec<X>`) for the layout's `X`, so `I` is
    // `&'x [X]` (or `&'x Vec<X>`) with `X` differing at most in lifetimes,
    // which do not change its layout; `Pod` types hold no references. `I:
    // 'b` because `value: &'b I`, so the elements live for `'b`, and the
    // returned pointer and length describe them.
    let (ptr, len) = unsafe { bytes_of((value as *const I).cast::<()>()) };
    // SAFETY: `ptr` and `len` describe the initialised bytes of the
    // elements (`Pod`: no padding), borrowed for `'b`.
    Some((layout, unsafe { std::slice::from_raw_parts(ptr, len) }))
}

/// The layout to read with when `V` is serde's own visitor for `Vec<X>`
/// of a known layout; `None` for every other visitor.
#[inline]
pub(crate) fn for_visitor<'de, V: Visitor<'de>>() -> Option<&'static Layout> {
    // Decided at compile time: most visitors' values are not vector-sized.
    if std::mem::size_of::<V::Value>() != std::mem::size_of::<Vec<u8>>() {
        return None;
    }
    let (layout, role) = lookup(typeid::of::<V::Value>())?;
    (role == Role::Owned && layout.visitor() == Some(typeid::of::<V>())).then_some(layout)
}

/// A `Vec<X>` of the whole records in `bytes`, as an `Out`; `None` unless
/// `Out` is the layout's `Vec<X>`.
pub(crate) fn build<Out>(layout: &Layout, bytes: &[u8]) -> Option<Out> {
    if typeid::of::<Out>() != layout.owned {
        return None;
    }
    let mut out = MaybeUninit::<Out>::uninit();
    // SAFETY: `Out` has the id of `Vec<X>` for the layout's `X` up to
    // lifetimes, which a `Pod` `X` holds only as markers, so `out` is valid
    // for writing a `Vec<X>`; `build` initialises it.
    unsafe {
        (layout.build)(bytes, out.as_mut_ptr().cast::<()>());
        Some(out.assume_init())
    }
}

// ----- registration -----------------------------------------------------------

/// Why [`register`] refused a type.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// A zero-sized type has no bytes to copy.
    #[error("`{0}` is zero-sized")]
    ZeroSized(&'static str),
    /// serde's element-by-element bytes of a test value are not its memory.
    #[error(
        "`{ty}` is written by serde as other bytes than its memory (first difference at byte {offset} of {len}); is it #[repr(C)] with its fields in declaration order, and no field skipped or converted?"
    )]
    WrittenDiffers {
        /// The type.
        ty: &'static str,
        /// First byte that differs (or the shorter length).
        offset: usize,
        /// The type's size.
        len: usize,
    },
    /// Reading the element-by-element bytes gave another value.
    #[error(
        "`{ty}` read by serde from its memory's bytes gives other bytes (first difference at byte {offset})"
    )]
    ReadDiffers {
        /// The type.
        ty: &'static str,
        /// First byte that differs.
        offset: usize,
    },
    /// serde could not write or read a test value at all.
    #[error("`{ty}`: {source}")]
    Serde {
        /// The type.
        ty: &'static str,
        /// What serde's path said.
        source: crate::Error,
    },
}

/// Lets sequences of `T` (`Vec<T>`, `[T]`, `Box<[T]>`, ...) be written and
/// read with one copy of their memory, like blocks of numbers.
///
/// `T` must be `bytemuck::Pod` (`#[repr(C)]` or transparent, no padding,
/// every bit pattern valid), and its `Serialize` and `Deserialize` must
/// write and read its fields in memory order, as a derived impl of a
/// `#[repr(C)]` struct does. Registration checks this on test patterns
/// (serde's bytes against the memory, both ways) and refuses a type that
/// fails, so the bytes never depend on whether a type was registered. Call
/// it once, at start-up; registering again is harmless. Types with
/// lifetime parameters must not be registered.
///
/// Fixed arrays of numbers (`[f32; 3]`, `[[f64; 4]; 4]`, ...) need no
/// registration. On a big-endian host the element path always runs, so
/// registration has no effect and checks nothing but the size: there a
/// record's memory is not its encoding (unless all its fields are bytes),
/// and its bytes are serde's whatever its impls do.
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq,
///          bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(C)]
/// struct Vertex { x: f32, y: f32, z: f32, id: u32 }
///
/// kiln::block::register::<Vertex>()?;
/// let mesh = vec![Vertex { x: 1.0, y: 2.0, z: 3.0, id: 7 }; 1000];
/// let bytes = kiln::to_vec(&mesh)?;          // 4 + 16,000 bytes, one copy
/// assert_eq!(&bytes[..8], [0xe8, 0x03, 0, 0, 0, 0, 0x80, 0x3f]);
/// let back: Vec<Vertex> = kiln::from_slice(&bytes)?;
/// assert_eq!(back, mesh);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`RegisterError`] when `T` is zero-sized or (on a little-endian host)
/// serde's bytes of it are not its memory.
pub fn register<T: Pod + Serialize + DeserializeOwned>() -> Result<(), RegisterError> {
    let ty = std::any::type_name::<T>();
    let size = std::mem::size_of::<T>();
    if size == 0 {
        return Err(RegisterError::ZeroSized(ty));
    }
    if cfg!(target_endian = "big") {
        return Ok(());
    }
    let serde = |source| RegisterError::Serde { ty, source };
    // Patterns that tell every byte position apart (within 64 KiB), and
    // their complement, so that a reordering or a conversion shows.
    let patterns: [fn(usize) -> u8; 3] = [|i| i as u8, |i| !(i >> 8) as u8, |i| !(i as u8)];
    let mut depth = 0;
    for pattern in patterns {
        let memory: Vec<u8> = (0..size).map(pattern).collect();
        let value: T = bytemuck::pod_read_unaligned(&memory);
        let written = crate::to_vec(&value).map_err(serde)?;
        if written != memory {
            let offset = first_difference(&written, &memory);
            return Err(RegisterError::WrittenDiffers {
                ty,
                offset,
                len: size,
            });
        }
        let read: T = crate::from_slice(&memory).map_err(serde)?;
        let read = bytemuck::bytes_of(&read);
        if read != memory.as_slice() {
            let offset = first_difference(read, &memory);
            return Err(RegisterError::ReadDiffers { ty, offset });
        }
        if depth == 0 {
            depth = depth_of::<T>(&memory);
        }
    }
    // The arrays first, outside the lock that building them takes.
    let _ = table();
    let mut published = PUBLISHED.lock().unwrap_or_else(|e| e.into_inner());
    let mut table = table().clone();
    if table.contains_key(&TypeId::of::<Vec<T>>()) {
        return Ok(());
    }
    insert::<T>(&mut table, depth, true);
    publish(&mut published, table);
    Ok(())
}

/// Whether sequences of `T` take the one-copy path on this host: an array
/// of numbers, or a type passed to [`register`].
///
/// ```
/// // Always false on a big-endian host, where the element path runs.
/// let little = cfg!(target_endian = "little");
/// assert_eq!(kiln::block::registered::<[f32; 3]>(), little);
/// assert!(!kiln::block::registered::<(f32, f32)>());
/// ```
pub fn registered<T: 'static>() -> bool {
    lookup(TypeId::of::<Vec<T>>()).is_some()
}

/// The smallest `max_depth` with which the element path reads `bytes` as
/// a `T`: how far a record nests.
fn depth_of<T: DeserializeOwned>(bytes: &[u8]) -> u32 {
    (1..crate::options::DEFAULT_MAX_DEPTH)
        .find(|&d| {
            crate::Options::new()
                .max_depth(d)
                .from_slice::<T>(bytes)
                .is_ok()
        })
        .unwrap_or(crate::options::DEFAULT_MAX_DEPTH)
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// Makes every sequence of records take the element-by-element path in
/// this process, as on a big-endian host (blocks of plain numbers keep
/// their own one-copy path). For tests that compare the two paths.
#[doc(hidden)]
pub fn element_path_only(on: bool) {
    ELEMENT_PATH_ONLY.store(on, Ordering::Relaxed);
}
