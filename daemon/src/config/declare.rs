//! The machinery behind [`settings!`]: from one declaration per setting (type, file key,
//! flag, environment variable, default, whether a reload applies it, whether it is secret,
//! and what it means) follow the flags, the file's keys, the precedence, `--print-config`,
//! the redacted copy kept with every diagnostic record, what a reload may change, and the
//! reference table in docs/configuration.md.
//!
//! One precedence rule for every setting: the flag, else the setting's environment
//! variable, else the configuration file, else the default (which may look at the
//! directories systemd or XDG name).

use anyhow::Context;

use super::env::Env;

/// What is declared of one setting, for the reference table and the file's key check.
#[derive(Debug, Clone, Copy)]
pub struct Declared {
    /// The file key (`retry.max_attempts`: the key `max_attempts` in the `[retry]` section).
    pub key: &'static str,
    /// The flag as help shows it (`--retry-max-attempts N`).
    pub flag: &'static str,
    /// The environment variable that sets it, if any.
    pub env: Option<&'static str>,
    /// The default, as documentation shows it.
    pub default: &'static str,
    /// A SIGHUP applies it (otherwise only a restart does).
    pub reloads: bool,
    /// It says where a secret is; the secret itself is read later and never kept here.
    pub secret: bool,
    /// What it means.
    pub doc: &'static str,
}

/// What a default may depend on besides the setting itself.
#[derive(Debug, Clone, Copy)]
pub struct DefaultInputs<'a> {
    /// The environment (systemd's and XDG's directories).
    pub env: &'a Env,
    /// `--demo`: demo sessions are kept apart from real ones.
    pub demo: bool,
}

/// Reads an environment variable as a setting's value.
pub fn from_env<T>(
    env: &Env,
    var: &str,
    parse: impl Fn(&str) -> anyhow::Result<T>,
) -> anyhow::Result<Option<T>> {
    let Some(text) = env.text(var) else {
        return Ok(None);
    };
    parse(text)
        .map(Some)
        .with_context(|| format!("{var} is not a valid value"))
}

/// A setting's help: its doc as one paragraph, and its default (without the backticks
/// the README renders).
pub fn help(doc: &[&str], default: Option<&str>) -> String {
    let text = doc
        .iter()
        .map(|line| line.trim())
        .collect::<Vec<_>>()
        .join(" ");
    let text = match default {
        Some(default) => format!("{text} [default: {default}]"),
        None => text,
    };
    text.replace('`', "")
}

/// Declares the settings: see the module's documentation. Each entry:
///
/// ```text
/// /// What it means (the flag's help and the reference table).
/// name: Type {
///     key: "section.key",                      // in the configuration file
///     flag: value("flag-name", "VALUE")        // `--flag-name VALUE`, parsed by FromStr
///         | parsed("flag-name", "VALUE", f)    // ... parsed by f
///         | switch("flag-name", true|false),   // `--flag-name` sets the value given
///     env: var("VAR") | parsed("VAR", f),      // left out: no environment variable
///     default: fixed(expr)                     // shown as written
///         | text(CONST)                        // a `&str` constant, shown as its value
///         | from(f, "shown")                   // f(&DefaultInputs) -> Result<Type>
///         | maybe(f, "shown")                  // -> Result<Option<Type>>: may stay unset
///         | none                               // unset unless given
///         | derived("shown"),                  // unset unless given; then made from other
///                                              // settings where it is used, as shown
///     reloads: bool,                           // a SIGHUP applies it
///     secret: bool,                            // it names where a secret is, never holds it
/// }
/// ```
macro_rules! settings {
    ($(
        $(#[doc = $doc:literal])+
        $name:ident : $ty:ty {
            key: $key:literal,
            flag: $fkind:ident ( $($flag:tt)* ),
            $(env: $ekind:ident $(( $($env:tt)* ))?,)?
            default: $dkind:ident $(( $($default:tt)* ))?,
            reloads: $reloads:literal,
            secret: $secret:literal $(,)?
        }
    )*) => {
        /// The flags of every setting, each optional so that a flag that was given can be
        /// told from one that was not.
        #[derive(Debug, Clone, Default)]
        pub struct SettingFlags {
            $(
                $(#[doc = $doc])+
                pub $name: Option<$ty>,
            )*
        }

        impl clap::FromArgMatches for SettingFlags {
            fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
                Ok(Self {$(
                    $name: matches.get_one::<$ty>(stringify!($name)).cloned(),
                )*})
            }

            fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
                *self = Self::from_arg_matches(matches)?;
                Ok(())
            }
        }

        impl clap::Args for SettingFlags {
            fn augment_args(command: clap::Command) -> clap::Command {
                command$(.arg(
                    settings!(@arg $fkind ($($flag)*) $ty)
                        .id(stringify!($name))
                        .help($crate::config::declare::help(&[$($doc),+], None))
                        .long_help($crate::config::declare::help(
                            &[$($doc),+],
                            Some(settings!(@shown $dkind $(($($default)*))?)),
                        ))
                ))*
            }

            fn augment_args_for_update(command: clap::Command) -> clap::Command {
                Self::augment_args(command)
            }
        }

        /// Every setting's value, resolved by the one precedence rule.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Settings {
            $(
                $(#[doc = $doc])+
                pub $name: settings!(@type $dkind $ty),
            )*
        }

        /// What is declared of every setting, in declaration order.
        pub const DECLARED: &[$crate::config::declare::Declared] = &[$(
            $crate::config::declare::Declared {
                key: $key,
                flag: settings!(@shownflag $fkind ($($flag)*)),
                env: settings!(@envname $($ekind $(($($env)*))?)?),
                default: settings!(@shown $dkind $(($($default)*))?),
                reloads: $reloads,
                secret: $secret,
                doc: concat!($($doc),+),
            },
        )*];

        impl Settings {
            /// The flag, else the environment variable, else the file, else the default.
            pub fn resolve(
                flags: &SettingFlags,
                inputs: &$crate::config::declare::DefaultInputs<'_>,
                file: &$crate::config::file::FileValues,
            ) -> anyhow::Result<Self> {
                Ok(Self {$(
                    $name: {
                        let given: Option<$ty> = match flags.$name.clone() {
                            Some(value) => Some(value),
                            None => match settings!(@env $($ekind $(($($env)*))?)? inputs.env, $ty)? {
                                Some(value) => Some(value),
                                None => file.get::<$ty>($key)?,
                            },
                        };
                        settings!(@default $dkind $(($($default)*))? given, inputs)
                    },
                )*})
            }

            /// The values as the configuration file writes them.
            pub fn to_toml(&self) -> toml::Table {
                use $crate::config::forms::SettingValue as _;
                let mut table = toml::Table::new();
                $(
                    if let Some(value) = settings!(@optional $dkind &self.$name).and_then(|v| v.file_form()) {
                        $crate::config::forms::put_toml(&mut table, $key, value);
                    }
                )*
                table
            }

            /// The values as JSON, nested by section like the file.
            pub fn to_json(&self) -> serde_json::Value {
                use $crate::config::forms::SettingValue as _;
                let mut object = serde_json::Map::new();
                $(
                    let value = settings!(@optional $dkind &self.$name)
                        .map_or(serde_json::Value::Null, |v| v.json_form());
                    $crate::config::forms::put_json(&mut object, $key, value);
                )*
                serde_json::Value::Object(object)
            }

            /// Keeps in `self` what only a restart changes, as `running` has it, and names
            /// the file keys of the settings that differed.
            pub fn keep_restart_only(&mut self, running: &Settings) -> Vec<&'static str> {
                let mut kept = Vec::new();
                $(
                    if !$reloads && self.$name != running.$name {
                        self.$name = running.$name.clone();
                        kept.push($key);
                    }
                )*
                kept
            }
        }
    };

    (@arg value ($flag:literal, $vname:literal) $ty:ty) => {
        clap::Arg::new($flag).long($flag).value_name($vname).value_parser(clap::value_parser!($ty))
    };
    (@arg parsed ($flag:literal, $vname:literal, $parse:expr) $ty:ty) => {
        clap::Arg::new($flag).long($flag).value_name($vname).value_parser($parse)
    };
    (@arg switch ($flag:literal, $value:literal) $ty:ty) => {
        clap::Arg::new($flag)
            .long($flag)
            .num_args(0)
            .action(clap::ArgAction::Set)
            .default_missing_value(stringify!($value))
            .value_parser(clap::value_parser!(bool))
    };
    (@shownflag value ($flag:literal, $vname:literal)) => { concat!("--", $flag, " ", $vname) };
    (@shownflag parsed ($flag:literal, $vname:literal, $parse:expr)) => { concat!("--", $flag, " ", $vname) };
    (@shownflag switch ($flag:literal, $value:literal)) => { concat!("--", $flag) };
    (@envname) => { None };
    (@envname var ($var:expr)) => { Some($var) };
    (@envname parsed ($var:expr, $parse:expr)) => { Some($var) };
    (@env var ($var:expr) $env:expr, $ty:ty) => {
        $crate::config::declare::from_env::<$ty>($env, $var, |text| text.parse::<$ty>().map_err(anyhow::Error::msg))
    };
    (@env parsed ($var:expr, $parse:expr) $env:expr, $ty:ty) => {
        $crate::config::declare::from_env::<$ty>($env, $var, $parse)
    };
    (@env $env:expr, $ty:ty) => { anyhow::Ok(None::<$ty>) };
    (@shown fixed ($value:expr)) => { stringify!($value) };
    (@shown text ($value:expr)) => { $value };
    (@shown from ($f:expr, $shown:literal)) => { $shown };
    (@shown maybe ($f:expr, $shown:literal)) => { $shown };
    (@shown none) => { "unset" };
    (@shown derived ($shown:literal)) => { $shown };
    (@type fixed $ty:ty) => { $ty };
    (@type text $ty:ty) => { $ty };
    (@type from $ty:ty) => { $ty };
    (@type maybe $ty:ty) => { Option<$ty> };
    (@type none $ty:ty) => { Option<$ty> };
    (@type derived $ty:ty) => { Option<$ty> };
    (@default fixed ($value:expr) $given:ident, $inputs:ident) => { $given.unwrap_or($value) };
    (@default text ($value:expr) $given:ident, $inputs:ident) => {
        $given.unwrap_or_else(|| $value.into())
    };
    (@default from ($f:expr, $shown:literal) $given:ident, $inputs:ident) => {
        match $given { Some(value) => value, None => ($f)($inputs)? }
    };
    (@default maybe ($f:expr, $shown:literal) $given:ident, $inputs:ident) => {
        match $given { Some(value) => Some(value), None => ($f)($inputs)? }
    };
    (@default none $given:ident, $inputs:ident) => { $given };
    (@default derived ($shown:literal) $given:ident, $inputs:ident) => { $given };
    (@optional fixed $value:expr) => { Some($value) };
    (@optional text $value:expr) => { Some($value) };
    (@optional from $value:expr) => { Some($value) };
    (@optional maybe $value:expr) => { ($value).as_ref() };
    (@optional none $value:expr) => { ($value).as_ref() };
    (@optional derived $value:expr) => { ($value).as_ref() };
}

pub(crate) use settings;
