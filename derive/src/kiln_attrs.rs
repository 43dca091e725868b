//! `#[kiln(...)]`: what the user says about a type or field that serde's
//! attributes cannot.
//!
//! On a container: `crate = "path"` (where `kiln` is), `bound = "T: ..."`
//! (the where clause instead of the inferred one), `with = Type` (the
//! schema of another type, for `from`/`into` pairs that differ).
//! On a field: `with = Type` or `schema = "format"`, for fields whose
//! `#[serde(with = ...)]` hides what they write.

use syn::{Attribute, LitStr, Type, WherePredicate};

/// What a field's value is described as, when not its own type.
pub enum Override {
    /// `#[kiln(with = Type)]`: as `Type`.
    With(Box<Type>),
    /// `#[kiln(schema = "text")]`: the format written in chapter 5's grammar.
    Text(LitStr),
}

/// `#[kiln(...)]` on a struct or enum.
#[derive(Default)]
pub struct ContainerAttrs {
    pub krate: Option<syn::Path>,
    pub bound: Option<Vec<WherePredicate>>,
    pub with: Option<Override>,
}

/// `#[kiln(...)]` on a field.
#[derive(Default)]
pub struct FieldAttrs {
    pub with: Option<Override>,
}

/// Reads every `#[kiln(...)]` among `attrs`, calling `each` for each key.
fn each_kiln_attr(
    attrs: &[Attribute],
    mut each: impl FnMut(&syn::meta::ParseNestedMeta<'_>) -> syn::Result<()>,
) -> syn::Result<()> {
    for attr in attrs.iter().filter(|a| a.path().is_ident("kiln")) {
        attr.parse_nested_meta(|meta| each(&meta))?;
    }
    Ok(())
}

/// `with = Type` or `schema = "text"`, once.
fn read_override(
    meta: &syn::meta::ParseNestedMeta<'_>,
    slot: &mut Option<Override>,
) -> syn::Result<bool> {
    let found = if meta.path.is_ident("with") {
        Override::With(meta.value()?.parse()?)
    } else if meta.path.is_ident("schema") {
        Override::Text(meta.value()?.parse()?)
    } else {
        return Ok(false);
    };
    if slot.replace(found).is_some() {
        return Err(meta.error("kiln: give one of `with` and `schema`, once"));
    }
    Ok(true)
}

impl ContainerAttrs {
    pub fn from_attrs(attrs: &[Attribute]) -> syn::Result<Self> {
        let mut out = ContainerAttrs::default();
        each_kiln_attr(attrs, |meta| {
            if read_override(meta, &mut out.with)? {
                Ok(())
            } else if meta.path.is_ident("crate") {
                let path: LitStr = meta.value()?.parse()?;
                out.krate = Some(path.parse()?);
                Ok(())
            } else if meta.path.is_ident("bound") {
                let text: LitStr = meta.value()?.parse()?;
                let parsed = text.parse_with(
                    syn::punctuated::Punctuated::<WherePredicate, syn::Token![,]>::parse_terminated,
                )?;
                out.bound = Some(parsed.into_iter().collect());
                Ok(())
            } else {
                Err(meta.error(
                    "kiln: unknown container attribute; expected `crate`, `bound`, `with` or `schema`",
                ))
            }
        })?;
        Ok(out)
    }
}

impl FieldAttrs {
    pub fn from_attrs(attrs: &[Attribute]) -> syn::Result<Self> {
        let mut out = FieldAttrs::default();
        each_kiln_attr(attrs, |meta| {
            if read_override(meta, &mut out.with)? {
                Ok(())
            } else {
                Err(meta.error("kiln: unknown field attribute; expected `with` or `schema`"))
            }
        })?;
        Ok(out)
    }
}

/// Refuses `#[kiln(...)]` where it has no meaning (on a variant).
pub fn refuse_on_variant(attrs: &[Attribute]) -> syn::Result<()> {
    match attrs.iter().find(|a| a.path().is_ident("kiln")) {
        Some(attr) => Err(syn::Error::new_spanned(
            attr,
            "kiln: #[kiln(...)] goes on a variant's fields, not on the variant",
        )),
        None => Ok(()),
    }
}
