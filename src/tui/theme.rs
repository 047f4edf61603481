//! Colour themes: `themes/*.toml`, built in by name or read from a path. A theme also
//! names the syntect colour scheme so prose and code colours agree with the chrome.

use std::path::Path;
use std::str::FromStr;

use ratatui::style::Color;
use serde::Deserialize;

const BUILT_IN: [(&str, &str); 3] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

/// Names the `--theme` flag accepts without a path.
pub fn built_in_names() -> impl Iterator<Item = &'static str> {
    BUILT_IN.iter().map(|(name, _)| *name)
}

#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("{source_name}: cannot read: {message}")]
    Read {
        source_name: String,
        message: String,
    },
    #[error("{source_name}: {message}")]
    Invalid {
        source_name: String,
        message: String,
    },
    #[error("{source_name}: colors.{field}: '{value}' is not a colour (use #rrggbb or a name)")]
    Colour {
        source_name: String,
        field: &'static str,
        value: String,
    },
    #[error(
        "--theme: no theme named '{0}' (built in: dark, light, high-contrast; or a path to a .toml file)"
    )]
    Unknown(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: String,
    syntax_theme: String,
    colors: ColourFile,
}

macro_rules! colours {
    ($($field:ident),* $(,)?) => {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct ColourFile { $($field: String,)* }

        /// The resolved colours of the chrome.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct Palette { $(pub $field: Color,)* }

        impl ColourFile {
            fn resolve(&self, source_name: &str) -> Result<Palette, ThemeError> {
                Ok(Palette { $($field: parse_colour(source_name, stringify!($field), &self.$field)?,)* })
            }
        }
    };
}

colours!(
    background,
    foreground,
    muted,
    accent,
    border,
    title,
    tab_active_fg,
    tab_active_bg,
    tab_changed,
    cursor_line,
    selection,
    added,
    removed,
    warning,
    error,
    status_fg,
    status_bg,
    line_number,
    tail,
);

fn parse_colour(source_name: &str, field: &'static str, value: &str) -> Result<Color, ThemeError> {
    Color::from_str(value).map_err(|_| ThemeError::Colour {
        source_name: source_name.to_string(),
        field,
        value: value.to_string(),
    })
}

/// A loaded theme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub name: String,
    /// Name of a syntect theme from its default set.
    pub syntax_theme: String,
    pub palette: Palette,
}

impl Theme {
    /// Parses theme TOML; `source_name` is used in error messages.
    pub fn from_toml(source_name: &str, text: &str) -> Result<Theme, ThemeError> {
        let file: ThemeFile = toml::from_str(text).map_err(|e| ThemeError::Invalid {
            source_name: source_name.to_string(),
            message: e.message().to_string(),
        })?;
        let palette = file.colors.resolve(source_name)?;
        Ok(Theme {
            name: file.name,
            syntax_theme: file.syntax_theme,
            palette,
        })
    }

    /// A built-in theme by name, or a theme file when `spec` names an existing path.
    pub fn load(spec: &str) -> Result<Theme, ThemeError> {
        if let Some((name, text)) = BUILT_IN.iter().find(|(name, _)| *name == spec) {
            return Theme::from_toml(&format!("themes/{name}.toml"), text);
        }
        let path = Path::new(spec);
        if spec.ends_with(".toml") || path.is_file() {
            let text = std::fs::read_to_string(path).map_err(|e| ThemeError::Read {
                source_name: path.display().to_string(),
                message: e.to_string(),
            })?;
            return Theme::from_toml(&path.display().to_string(), &text);
        }
        Err(ThemeError::Unknown(spec.to_string()))
    }

    /// The default dark theme; built in, so it always parses.
    pub fn dark() -> Theme {
        Theme::load("dark").unwrap_or_else(|_| Theme {
            name: "dark".into(),
            syntax_theme: "base16-ocean.dark".into(),
            palette: Palette {
                background: Color::Reset,
                foreground: Color::Reset,
                muted: Color::DarkGray,
                accent: Color::Cyan,
                border: Color::DarkGray,
                title: Color::Yellow,
                tab_active_fg: Color::Black,
                tab_active_bg: Color::Cyan,
                tab_changed: Color::Yellow,
                cursor_line: Color::DarkGray,
                selection: Color::Blue,
                added: Color::Green,
                removed: Color::Red,
                warning: Color::Yellow,
                error: Color::Red,
                status_fg: Color::Black,
                status_bg: Color::Gray,
                line_number: Color::DarkGray,
                tail: Color::Gray,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_themes_parse_and_name_a_known_syntax_theme() {
        let names = [
            "base16-ocean.dark",
            "InspiredGitHub",
            "base16-eighties.dark",
        ];
        for name in built_in_names() {
            let theme = Theme::load(name).unwrap();
            assert_eq!(theme.name, name);
            assert!(names.contains(&theme.syntax_theme.as_str()));
        }
    }

    #[test]
    fn bad_colour_names_file_and_field() {
        let text = include_str!("../../themes/dark.toml").replace("#61afef", "blurple");
        let err = Theme::from_toml("mine.toml", &text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("mine.toml"), "{err}");
        assert!(err.contains("colors.accent"), "{err}");
        assert!(err.contains("blurple"), "{err}");
    }

    #[test]
    fn unknown_theme_is_refused() {
        let err = Theme::load("neon").unwrap_err().to_string();
        assert!(err.contains("neon"), "{err}");
    }
}
