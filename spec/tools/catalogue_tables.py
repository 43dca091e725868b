#!/usr/bin/env python3
"""Rewrites the vector tables of spec/09-rejections.md from spec/vectors/*.json.

Each table of must-reject vectors in chapter 9 follows a marker comment
`<!-- vectors: AREA -->`; this script replaces the table under each marker
with one row per must-reject vector of spec/vectors/AREA.json, in file
order. Rows outside those tables (the byte-limit vector, the refusals
without a vector) are written by hand. tests/rejections.rs checks the
result against the files and the crate, so a stale table fails the tests.

Run: python3 spec/tools/catalogue_tables.py
"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(HERE, "..", "vectors") + "/"
OFF={
'unexpected-end':'first byte of the value that could not be read whole',
'invalid-bool':'the bool byte','invalid-option-tag':'the tag byte','invalid-char':'first byte of the char',
'invalid-utf8':'first byte after the longest valid UTF-8 prefix','unknown-variant':'first byte of the index',
'count-too-large':'first byte of the count','zero-sized-limit':'where the budget ran out',
'depth-limit':'where the reader would have gone one level deeper','trailing-bytes':'first byte after the record (or payload)',
'unsupported':'where the reader stood',
'bad-magic':'0','frame-truncated':'start of the part that is cut (0 header, 64 schema text, P payload or trailer)',
'unsupported-version':'8','reserved-flag':'10','header-field':'the field (12, 24, 32, 40, or trailer + 16)',
'padding-nonzero':'the byte','schema-mismatch':'16','schema-text-limit':'12','schema-text-mismatch':'64',
'checksum-mismatch':'40, or trailer + 16','count-mismatch':'the payload\'s end','payload-length-mismatch':'first byte left, or trailer + 8',
'bad-trailer':'trailer + 24',
'directory-offset':'t (the trailer)','directory-reserved':'the byte','directory-length':'t + 8, the entry, or where the entries end',
'unknown-dtype':'the entry','rank-limit':'entry + 1','dimension-limit':'the dimension','array-size-overflow':'entry + 24',
'block-length':'entry + 16','block-misaligned':'entry + 8','block-order':'entry + 8','block-overlap':'entry + 8','block-out-of-bounds':'entry + 8',
'array-position':'where the array starts','dtype-mismatch':'where the array starts (fetch: the block)','array-count':'where the array starts, or the values\' end',
'directory-position':'where the values end','directory-missing':'the record\'s end','record-end-unknown':'where the array starts',
'array-index':'d (the directory)',
'schema-incompatible':'16 (the fingerprint)','variant-not-in-reader':'first byte of the variant index',
'schema-text':'the byte of the text where it stops being canonical',
'directory-flag':'10 (the flags)',
'truncated-tail':'the end of the last complete frame','record-index':'the index entry, or the payload\'s end',
}
def reading(v):
    ty=v.get('type',''); m=v.get('mode','decode')
    return {'decode':ty,'framed':'frame of '+ty,'framed-batch':'framed batch of '+ty,'bare-batch':'bare batch of '+ty,
            'file':'file of '+ty,'evolve':'frame of another version','list':'list','schema-text':'schema text','take':'take '+ty,'fetch':'fetch %d as %s'%(v.get('index',0),v.get('element',''))}[m]
def rows(area, text=None):
    d=json.load(open(root+area+'.json'))
    out=[]
    for v in d['vectors']:
        if 'error' not in v: continue
        name=v['name']
        trig=(text or {}).get(name) or v.get('comment') or name.split('-',2)[2].replace('-',' ')
        trig=trig.replace('|','\\|')
        h=v['hex'] if len(v['hex'])<=64 else area+'.json'
        out.append('| `%s` | %s | %s | `%s` | `%s` | `%s` | %d |'%(v['error'],trig,OFF[v['error']],name,reading(v),h,v['offset']))
    return out
HEAD='| Code | Triggered by | Offset | Vector | Type | Hex | At |\n|---|---|---|---|---|---|---|'

TEXT={
'kiln-core-bool-invalid':'a `bool` byte other than `00` or `01`',
'kiln-core-bool-invalid-ff':'a `bool` byte of all ones',
'kiln-core-option-tag-invalid':'an `Option` tag other than `00` or `01`',
'kiln-core-option-tag-invalid-inner':'a bad tag on the inner option of two',
'kiln-core-char-all-ones':'a `char` of all ones',
'kiln-core-utf8-invalid-byte':'a byte that never occurs in UTF-8',
'kiln-core-utf8-lone-continuation':'a continuation byte with no lead byte',
'kiln-core-utf8-in-struct':'a bad byte in a string field of a struct',
'kiln-core-variant-unknown-large':'a variant index of all ones',
'kiln-core-variant-unknown-inside-option':'an unknown variant inside `Some`',
'kiln-core-end-empty-input':'no bytes at all (the strict prefix of length 0)',
'kiln-core-end-in-second-field':'a `Point` cut inside `y` (prefix of length 6)',
'kiln-core-end-in-f64':'an `f64` one byte short',
'kiln-core-end-in-count':'a string count cut short',
'kiln-core-end-in-bytes':'a byte string whose bytes run out',
'kiln-core-end-after-option-tag':'a `Some` tag with nothing after it',
'kiln-core-end-in-variant-index':'a variant index cut short',
'kiln-core-end-in-variant-payload':'a newtype variant whose payload is cut short',
'kiln-core-end-in-map-value':'a map entry whose value is missing',
'kiln-core-end-in-array':'a fixed-size array one element short',
'kiln-core-count-too-large-nested':'an inner sequence count the rest cannot hold',
'kiln-core-count-too-large-map':'a map count with no bytes after it',
'kiln-core-trailing-byte':'one byte after a `u8`',
'kiln-core-trailing-after-point':'one byte after a `Point`',
'kiln-core-trailing-after-unit':'any byte after `()`, which takes none',
'kiln-block-u32-count-cut':'a block count cut short',
'kiln-block-u16-element-cut':'a block whose last element is cut short',
'kiln-frame-bad-magic':'a frame whose magic has one byte changed',
'kiln-frame-not-a-frame':'JSON text where a frame was expected',
'kiln-frame-header-truncated':'a frame cut inside its 64-byte header',
'kiln-frame-empty':'no bytes at all',
'kiln-frame-unknown-version':'version 2',
'kiln-frame-reserved-flag':'flag bit 5 set (bit 4 is INDEXED)',
'kiln-frame-indexed-to-batch-reader':'flag INDEXED on a frame handed to a batch reader',
'kiln-frame-reserved-flag-high':'flag bit 15 set',
'kiln-frame-schema-len-without-flag':'a schema length without the SCHEMA flag',
'kiln-frame-reserved-byte-set':'a reserved header byte not zero',
'kiln-frame-fingerprint-mismatch':'a fingerprint one bit away from the reader\'s',
'kiln-frame-written-by-changed-struct':'a frame written by a struct with another field',
'kiln-frame-schema-text-changed':'embedded schema text that does not hash to the header\'s fingerprint',
'kiln-frame-schema-text-not-utf8':'embedded schema text that is not UTF-8',
'kiln-frame-schema-padding-set':'a padding byte after the schema text not zero',
'kiln-frame-schema-truncated':'a frame cut inside its schema text',
'kiln-frame-payload-truncated':'a payload shorter than `payload_len`',
'kiln-frame-trailing-byte':'a byte after the payload of a frame that is not streamed',
'kiln-frame-checksum-mismatch':'a header CRC-32C that is not the payload\'s',
'kiln-frame-crc-without-flag':'a nonzero header CRC-32C without the CHECKSUM flag',
'kiln-frame-count-too-large':'a `record_count` above the records the payload holds',
'kiln-frame-count-huge':'a `record_count` of all ones that is not streamed',
'kiln-frame-count-too-small':'bytes left in the payload after the declared records',
'kiln-frame-length-too-short':'a `payload_len` that ends inside a record (with a matching checksum)',
'kiln-frame-streamed-count-in-header':'a streamed header whose `record_count` is not all ones',
'kiln-frame-streamed-bad-trailer':'a streamed trailer whose end magic is wrong',
'kiln-frame-streamed-cut':'a streamed frame missing its last byte',
'kiln-frame-streamed-no-trailer':'a streamed frame shorter than a trailer after the header',
'kiln-frame-streamed-count-too-large':'a trailer `record_count` above the records read',
'kiln-frame-streamed-count-too-small':'a trailer `record_count` below the records read',
'kiln-frame-streamed-length-wrong':'a trailer `payload_len` that is not the payload\'s',
'kiln-frame-streamed-checksum-mismatch':'a trailer CRC-32C that is not the payload\'s',
'kiln-frame-streamed-trailer-reserved':'a reserved trailer byte not zero',
'kiln-batch-record-cut-in-first':'a batch cut inside its first record',
'kiln-batch-invalid-bool':'a bad byte in the third record',
'kiln-directory-directory-offset-past-trailer':'a directory offset past the trailer',
'kiln-directory-trailer-reserved-not-zero':'a reserved trailer byte not zero',
'kiln-directory-entry-reserved-not-zero':'a reserved entry byte not zero',
'kiln-directory-count-too-large-for-directory':'more entries than the directory bytes can hold',
'kiln-directory-count-huge':'an entry count of all ones',
'kiln-directory-directory-bytes-left-over':'bytes left between the last entry and the trailer',
'kiln-directory-unknown-dtype-0d':'dtype `0d`, one past the last',
'kiln-directory-unknown-dtype-00':'dtype `00`',
'kiln-directory-rank-above-8':'a rank of 9',
'kiln-directory-dimension-above-limit':'a dimension of 2^53',
'kiln-directory-element-count-overflows':'dimensions whose product overflows 64 bits',
'kiln-directory-byte-count-overflows':'an element count that overflows once multiplied by the element size',
'kiln-directory-block-length-wrong':'a block length other than the shape needs',
'kiln-directory-block-misaligned':'a block offset that is not a multiple of 64',
'kiln-directory-blocks-out-of-order':'a block listed before one at a lower offset',
'kiln-directory-blocks-overlap':'a block that starts inside the previous one',
'kiln-directory-block-past-directory':'a block that runs into the directory',
'kiln-directory-block-end-overflows':'a block whose end overflows 64 bits',
'kiln-directory-padding-not-zero':'a padding byte in front of a block not zero',
'kiln-directory-array-not-where-entry-says':'an entry whose block offset is not the array\'s position',
'kiln-directory-dtype-not-the-readers':'an entry whose dtype is not the reader\'s element type',
'kiln-directory-more-arrays-than-entries':'a record type with more arrays than the directory lists',
'kiln-directory-more-entries-than-arrays':'a directory listing more arrays than the type holds',
'kiln-directory-values-end-before-directory':'values that end before the directory starts',
'kiln-directory-no-directory':'an array in a record with no trailer',
'kiln-directory-magic-wrong':'a trailer whose magic is wrong',
'kiln-directory-records-back-to-back':'an array read by `take_from_slice`, which does not know where the record ends',
'kiln-directory-fetch-index-past-entries':'`fetch` of an index past the entries',
'kiln-directory-fetch-wrong-dtype':'`fetch` with another element type than the entry\'s',
'kiln-directory-directory-without-arrays':'a directory after a record whose type holds no arrays',
'kiln-evolution-field-added-refused':'a reader field the writer never wrote, with no default and not an option',
'kiln-evolution-tuple-struct-longer':'a tuple struct with one more element in the reader',
'kiln-evolution-struct-to-enum':'a struct the reader reads as an enum',
'kiln-evolution-variant-removed-met':'a variant the reader does not have, without an `other` variant',
'kiln-evolution-variant-shape-changed':'a newtype variant the reader reads as a struct variant',
'kiln-evolution-i32-to-u64':'a signed integer read as unsigned',
'kiln-evolution-u64-to-u32':'an integer read as a narrower one',
'kiln-evolution-i64-to-f64':'an `i64` read as `f64`, which cannot hold every `i64`',
'kiln-evolution-f64-to-f32':'an `f64` read as `f32`',
'kiln-evolution-out-of-option':'an option read as its inner type',
'kiln-evolution-vec-to-array':'a sequence read as a fixed-size array',
'kiln-evolution-bytes-to-str':'a byte string read as a string',
'kiln-evolution-str-to-number':'a string read as a number',
'kiln-evolution-tuple-shorter':'a tuple of three read as a tuple of two',
'kiln-evolution-lie-dropped-bool':'a dropped `bool` field whose byte is 02: skipped values are checked',
'kiln-evolution-lie-string-count':'a string count that runs past the payload',
'kiln-evolution-lie-dropped-block-count':'a dropped `seq<u16>` whose count claims one element more than the payload holds: the error is at that element, as in 3.19',
}


def main():
    path = os.path.join(HERE, "..", "09-rejections.md")
    text = open(path).read()

    def table(m):
        area = m.group(1)
        return m.group(0).split("\n")[0] + "\n\n" + HEAD + "\n" + "\n".join(rows(area, TEXT)) + "\n"

    # A marker, a blank line, then the table (header, rule, rows).
    text, n = re.subn(r"<!-- vectors: (\w+) -->\n\n(?:\|.*\n)+", table, text)
    open(path, "w").write(text)
    print(f"rewrote {n} tables in {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
