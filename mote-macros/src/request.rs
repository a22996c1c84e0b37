//! `#[derive(Request)]`: a typed request and its reply type, from one attribute.

use quote::quote;
use syn::spanned::Spanned;
use syn::DeriveInput;

pub(crate) fn expand(item: proc_macro2::TokenStream) -> syn::Result<proc_macro2::TokenStream> {
    let input: DeriveInput = syn::parse2(item)?;
    let mut reply = None;
    for attr in &input.attrs {
        if attr.path().is_ident("reply") {
            if reply.is_some() {
                return Err(syn::Error::new(
                    attr.span(),
                    "only one #[reply(...)] is allowed",
                ));
            }
            reply = Some(attr.parse_args::<syn::Type>()?);
        }
    }
    let Some(reply) = reply else {
        return Err(syn::Error::new(
            input.ident.span(),
            "#[derive(Request)] needs the reply type: #[reply(Type)]",
        ));
    };
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::mote::server::Request for #name #ty_generics #where_clause {
            type Reply = #reply;
        }
    })
}
