//! What a positional format cannot read back, refused at compile time
//! with the attribute and the field named (`spec/05-schema.md`, 5.6).
//!
//! Each rule here is one a reader would otherwise break on at run time:
//! bytes that the type's own `Deserialize` cannot read, written without a
//! word.

use serde_derive_internals::{ast, attr};

/// Collects the refusals, so that one build shows them all.
#[derive(Default)]
pub struct Refusals(Option<syn::Error>);

impl Refusals {
    pub fn push(&mut self, at: impl quote::ToTokens, message: String) {
        let error = syn::Error::new_spanned(at, format!("kiln::Schema: {message}"));
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub fn into_result(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// Checks the container and its variants; fields are checked by
/// [`field`] as they are described.
pub fn container(cont: &ast::Container<'_>, out: &mut Refusals) {
    let name = cont.ident.to_string();
    let ident = &cont.ident;
    match cont.attrs.tag() {
        attr::TagType::External => {}
        attr::TagType::None => out.push(
            ident,
            format!(
                "#[serde(untagged)] on `{name}`: an untagged enum is read by trying each \
                 variant against a self-describing input, which Kiln's bytes are not; \
                 remove it (Kiln writes the variant's index)"
            ),
        ),
        attr::TagType::Internal { .. } | attr::TagType::Adjacent { .. } => out.push(
            ident,
            format!(
                "#[serde(tag = ...)] on `{name}`: an internally or adjacently tagged enum \
                 is read with deserialize_any, which a positional format cannot answer; \
                 remove it (Kiln writes the variant's index)"
            ),
        ),
    }
    if !matches!(cont.attrs.identifier(), attr::Identifier::No) {
        out.push(
            ident,
            format!(
                "#[serde(field_identifier)] or #[serde(variant_identifier)] on `{name}`: \
                 identifiers are names, which Kiln does not write"
            ),
        );
    }
    if let ast::Data::Enum(variants) = &cont.data {
        for v in variants {
            let vname = format!("{name}::{}", v.ident);
            if v.attrs.untagged() {
                out.push(
                    &v.ident,
                    format!(
                        "#[serde(untagged)] on variant `{vname}`: it is read by trying it \
                         against a self-describing input, which Kiln's bytes are not"
                    ),
                );
            }
            if v.attrs.skip_deserializing() {
                out.push(
                    &v.ident,
                    format!(
                        "#[serde(skip)] or #[serde(skip_deserializing)] on variant `{vname}`: \
                         serde's reader numbers the variants without it while its writer \
                         counts it, so every later variant would be read as another; remove \
                         the attribute"
                    ),
                );
            }
            if v.attrs.serialize_with().is_some() || v.attrs.deserialize_with().is_some() {
                out.push(
                    &v.ident,
                    format!(
                        "#[serde(with = ...)] on variant `{vname}` hides what it writes; put \
                         it on the variant's field instead, with #[kiln(with = Type)] or \
                         #[kiln(schema = \"...\")] beside it"
                    ),
                );
            }
        }
    }
}

/// Checks one field; `path` names it (`Point.x`, `Shape::Rect.w`).
pub fn field(f: &ast::Field<'_>, path: &str, out: &mut Refusals) {
    let a = &f.attrs;
    let at = f.original;
    if a.flatten() {
        out.push(
            at,
            format!(
                "#[serde(flatten)] on `{path}`: a flattened field is read as a map of \
                 names, which Kiln does not write; nest the struct as a plain field"
            ),
        );
    }
    if a.skip_serializing_if().is_some() {
        out.push(
            at,
            format!(
                "#[serde(skip_serializing_if = ...)] on `{path}`: a positional reader \
                 cannot tell that a field was left out, so every field after it would \
                 be misread; remove it (an Option costs one byte when None)"
            ),
        );
    }
    match (a.skip_serializing(), a.skip_deserializing()) {
        (true, false) => out.push(
            at,
            format!(
                "#[serde(skip_serializing)] without skip_deserializing on `{path}`: the \
                 reader expects a value the writer leaves out; use #[serde(skip)]"
            ),
        ),
        (false, true) => out.push(
            at,
            format!(
                "#[serde(skip_deserializing)] without skip_serializing on `{path}`: the \
                 writer writes a value the reader does not take; use #[serde(skip)]"
            ),
        ),
        _ => {}
    }
}
