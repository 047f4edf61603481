//! The languages a design is written in, and what the rules need to know of each:
//! which names are the language's own (so a signature may use them without the
//! design specifying them) and how its tests are laid out. The language of a piece
//! of the API spec comes from its code fence's tag, else its module's extension,
//! else the stack the architecture names.

use std::ops::Range;

use super::text::is_ident_char;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    Python,
    TypeScript,
    Go,
    Java,
    Kotlin,
    CSharp,
    Rust,
    /// Not stated anywhere: the rules accept the names of every language above.
    #[default]
    Unknown,
}

impl Lang {
    pub const ALL: [Lang; 7] = [
        Lang::Python,
        Lang::TypeScript,
        Lang::Go,
        Lang::Java,
        Lang::Kotlin,
        Lang::CSharp,
        Lang::Rust,
    ];

    /// A code fence's language tag (`ts`, `csharp`, `py`); `None` for tags that are
    /// not source code of these languages (`yaml`, `text`, `mermaid`, none).
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let tag = tag.trim().split([' ', '{', ',']).next().unwrap_or("");
        Some(match tag.to_ascii_lowercase().as_str() {
            "python" | "py" | "python3" | "pyi" => Lang::Python,
            "ts" | "typescript" | "tsx" | "js" | "javascript" | "jsx" | "mjs" => Lang::TypeScript,
            "go" | "golang" => Lang::Go,
            "java" => Lang::Java,
            "kotlin" | "kt" | "kts" => Lang::Kotlin,
            "csharp" | "cs" | "c#" | "dotnet" => Lang::CSharp,
            "rust" | "rs" => Lang::Rust,
            _ => return None,
        })
    }

    /// The language of a source path, by its extension.
    pub fn from_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.')?.1;
        match ext {
            "py" => Some(Lang::Python),
            "ts" | "tsx" | "js" | "jsx" | "mjs" => Some(Lang::TypeScript),
            "go" => Some(Lang::Go),
            "java" => Some(Lang::Java),
            "kt" | "kts" => Some(Lang::Kotlin),
            "cs" => Some(Lang::CSharp),
            "rs" => Some(Lang::Rust),
            _ => None,
        }
    }

    /// The stack an architecture states ("Java 21 and Spring Boot", "a Go 1.22
    /// service"): the language named most often, if any is.
    pub fn stated(architecture: &str) -> Lang {
        let lower = architecture.to_ascii_lowercase();
        let count =
            |words: &[&str]| -> usize { words.iter().map(|w| lower.matches(w).count()).sum() };
        let java = count(&["java "]) + count(&["java,"]) + count(&["spring"]);
        let scores = [
            (
                Lang::Python,
                count(&["python", "django", "fastapi", "flask", "pytest"]),
            ),
            (
                Lang::TypeScript,
                count(&[
                    "typescript",
                    "node.js",
                    "nestjs",
                    "express.js",
                    "expressjs",
                    "express 4",
                    "express 5",
                    "express app",
                    "javascript",
                    "deno",
                ]),
            ),
            (
                Lang::Go,
                count(&[
                    "golang",
                    "go 1.",
                    "in go ",
                    "go module",
                    " go,",
                    "written in go",
                ]),
            ),
            (Lang::Java, java),
            (Lang::Kotlin, count(&["kotlin", "ktor"])),
            (Lang::CSharp, count(&["c#", ".net", "asp.net", "csharp"])),
            (Lang::Rust, count(&["rust", "cargo"])),
        ];
        scores
            .iter()
            .filter(|(_, n)| *n > 0)
            .max_by_key(|(_, n)| *n)
            .map_or(Lang::Unknown, |(l, _)| *l)
    }

    /// A name the language or its standard library defines, so a design may use it
    /// in a signature without specifying it. Only names with a capital letter are
    /// asked: lower-case ones (`int`, `str`, `string`, `u64`) are never reported.
    pub fn is_builtin(self, name: &str) -> bool {
        match self {
            Lang::Unknown => Lang::ALL.iter().any(|l| l.is_builtin(name)),
            Lang::Python => PYTHON.contains(&name),
            Lang::TypeScript => TYPESCRIPT.contains(&name),
            Lang::Go => GO.contains(&name),
            Lang::Java => JAVA.contains(&name),
            Lang::Kotlin => KOTLIN.contains(&name) || JAVA.contains(&name),
            Lang::CSharp => CSHARP.contains(&name),
            Lang::Rust => RUST.contains(&name),
        }
    }
}

/// Where the tests of `lang` live and how they are named, in the words the first
/// design prompt uses: the design compiler's test rule (D022) enforces exactly this.
pub fn test_convention(lang: Lang) -> &'static str {
    match lang {
        Lang::Python => {
            "Python: pytest files named test_<module>.py (or <module>_test.py) in a tests/ tree that mirrors the package path (tests/unit/orders/test_service.py tests orders/service.py)."
        }
        Lang::TypeScript => {
            "TypeScript/JavaScript: <name>.spec.ts or <name>.test.ts beside the source file, or in a __tests__/ or tests/ tree that mirrors its path."
        }
        Lang::Go => "Go: <file>_test.go in the same directory (package) as <file>.go.",
        Lang::Java => {
            "Java: <Class>Test.java or <Class>Tests.java under src/test/java in the same package path as src/main/java/<package>/<Class>.java."
        }
        Lang::Kotlin => {
            "Kotlin: <Class>Test.kt or <Class>Tests.kt under src/test/kotlin in the same package path as the class under src/main/kotlin."
        }
        Lang::CSharp => {
            "C#: <Class>Tests.cs in a test project named <Project>.Tests (tests/<Project>.Tests/…) mirroring the folders of src/<Project>/."
        }
        Lang::Rust => {
            "Rust: unit tests in the module's own #[cfg(test)] mod tests (say so in the file tree or the architecture), integration tests as tests/<name>.rs."
        }
        Lang::Unknown => {
            "Each language's own convention: test_<module>.py, <name>.spec.ts / .test.ts, <file>_test.go, <Class>Test(s).java/.kt, <Class>Tests.cs, Rust #[cfg(test)]; a test matches the module whose path it mirrors."
        }
    }
}

/// Files that need no test of their own, in the words of the prompt (D022 skips them).
pub const DECLARATIVE_FILES: &str = "Declarative files need no test: entities and data classes without methods, enums, DTOs and records, interfaces, traits and ports, schemas, migrations, wiring entry points (main, Program.cs, *Application), module files (__init__.py, mod.rs, lib.rs, index.ts, *.module.ts) and configuration.";

/// The capitalised names a signature uses as types, with their byte ranges (offset
/// by `at`): qualified names (`context.Context`, `std::io::Error`), annotations and
/// attributes (`@PathVariable`, `[FromBody]`), constants (`FR`, `UUID`, `T`) and
/// strings are left out, as the reader cannot tell where those come from.
pub fn type_names(code: &str, at: usize) -> Vec<(String, Range<usize>)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += 1;
            }
            i += 1;
            continue;
        }
        if !(b.is_ascii_alphanumeric() || b == b'_') {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        let word = &code[start..i];
        if !bytes[start].is_ascii_uppercase() || !word.bytes().any(|c| c.is_ascii_lowercase()) {
            continue;
        }
        let before = start.checked_sub(1).map(|p| bytes[p]);
        let qualified = matches!(before, Some(b'.' | b'@' | b'\'' | b'$'))
            || (before == Some(b':') && start >= 2 && bytes[start - 2] == b':')
            || matches!(bytes.get(i), Some(b'.'))
            || (bytes.get(i) == Some(&b':') && bytes.get(i + 1) == Some(&b':'));
        let attribute = before == Some(b'[')
            && (start < 2 || !is_ident_char(bytes[start - 2] as char))
            && bytes.get(i) == Some(&b']');
        if !qualified && !attribute {
            out.push((word.to_string(), at + start..at + i));
        }
    }
    out
}

/// The type names of a signature from just after its name: in the parameter list
/// each parameter's name is left out (`name: Type`, Go's `name Type`, C-style
/// `Type name`), then everything after the list (the return type) counts.
pub fn signature_types(code: &str, at: usize, lang: Lang) -> Vec<(String, Range<usize>)> {
    let Some(open) = code.find('(') else {
        return type_names(code, at);
    };
    if !code[..open].trim().trim_start_matches('<').is_empty()
        && !code[..open].trim_start().starts_with('<')
    {
        return type_names(code, at);
    }
    let mut out = type_names(&code[..open], at);
    let bytes = code.as_bytes();
    let mut depth = 0usize;
    let mut part_start = open + 1;
    let mut close = code.len();
    for (i, b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'(' | b'<' | b'[' | b'{' => depth += 1,
            b')' | b'>' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && *b == b')' {
                    out.extend(param_types(&code[part_start..i], at + part_start, lang));
                    close = i + 1;
                    break;
                }
            }
            b',' if depth == 1 => {
                out.extend(param_types(&code[part_start..i], at + part_start, lang));
                part_start = i + 1;
            }
            _ => {}
        }
    }
    let tail = &code[close.min(code.len())..];
    let (skip, expr) = return_type(tail);
    out.extend(type_names(expr, at + close.min(code.len()) + skip));
    out
}

/// The return type after a parameter list (`-> list[Task]  # FR-1`, `: Promise<T |
/// undefined>;`, `(Link, error)`), without what follows it: a comment, or prose
/// such as `: Adds a task`.
fn return_type(tail: &str) -> (usize, &str) {
    let start = tail.len()
        - tail
            .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '-' | '>' | ':' | '='))
            .len();
    let rest = &tail[start..];
    let bytes = rest.as_bytes();
    let mut depth = 0usize;
    let mut end = 0;
    while end < bytes.len() {
        let b = bytes[end];
        match b {
            b'(' | b'<' | b'[' | b'{' => depth += 1,
            b')' | b'>' | b']' | b'}' => depth = depth.saturating_sub(1),
            b' ' | b'\t' if depth == 0 => {
                // `T | None` goes on; anything else after a space is not the type.
                let after = rest[end..].trim_start();
                if let Some(union) = after.strip_prefix('|') {
                    end = rest.len() - union.trim_start().len();
                    continue;
                }
                break;
            }
            b':' | b';' | b',' | b'#' if depth == 0 => break,
            _ => {}
        }
        end += 1;
    }
    (start, &rest[..end])
}

/// One parameter's types, without its name.
fn param_types(param: &str, at: usize, lang: Lang) -> Vec<(String, Range<usize>)> {
    let bytes = param.as_bytes();
    // `name: Type` (a lone `:`, not Rust's `::`)
    let colon = (0..bytes.len()).find(|&i| {
        bytes[i] == b':' && bytes.get(i + 1) != Some(&b':') && (i == 0 || bytes[i - 1] != b':')
    });
    if let Some(c) = colon {
        return type_names(&param[c + 1..], at + c + 1);
    }
    let trimmed = param.trim();
    let words = trimmed.split_whitespace().count();
    if words < 2 {
        return type_names(param, at);
    }
    let lead = param.len() - param.trim_start().len();
    match lang {
        Lang::Go => {
            let first = trimmed.split_whitespace().next().unwrap_or("");
            let skip = lead + first.len();
            type_names(&param[skip..], at + skip)
        }
        _ => {
            let last = trimmed.split_whitespace().next_back().unwrap_or("");
            let end = lead + trimmed.len() - last.len();
            type_names(&param[..end], at)
        }
    }
}

const PYTHON: &[&str] = &[
    "None",
    "True",
    "False",
    "Any",
    "Optional",
    "Union",
    "List",
    "Dict",
    "Set",
    "FrozenSet",
    "Tuple",
    "Type",
    "Callable",
    "Iterable",
    "Iterator",
    "Generator",
    "AsyncIterator",
    "AsyncIterable",
    "AsyncGenerator",
    "Awaitable",
    "Coroutine",
    "Sequence",
    "Mapping",
    "MutableMapping",
    "MutableSequence",
    "Collection",
    "Literal",
    "Final",
    "ClassVar",
    "Annotated",
    "TypeVar",
    "Generic",
    "Protocol",
    "Self",
    "NoReturn",
    "Never",
    "NamedTuple",
    "TypedDict",
    "Decimal",
    "Fraction",
    "Path",
    "PurePath",
    "Enum",
    "IntEnum",
    "StrEnum",
    "Flag",
    "TextIO",
    "BinaryIO",
    "Pattern",
    "Match",
    "Counter",
    "OrderedDict",
    "Deque",
    "ChainMap",
    "Exception",
    "ValueError",
    "KeyError",
    "TypeError",
    "RuntimeError",
    "OSError",
    "Logger",
    "Thread",
    "Lock",
    "Event",
    "Queue",
    "Future",
    "Task",
    "BytesIO",
    "StringIO",
    "Popen",
    "CompletedProcess",
    "ZoneInfo",
    "Ellipsis",
    "NotImplemented",
    "ABC",
    "Executor",
    "Namespace",
    "ArgumentParser",
    "Traceback",
    // the frameworks a Python design names most (FastAPI, Django, SQLAlchemy, pydantic)
    "APIRouter",
    "FastAPI",
    "Depends",
    "HTTPException",
    "Request",
    "Response",
    "BaseModel",
    "Field",
    "Session",
    "AsyncSession",
    "Engine",
    "Mapped",
    "QuerySet",
    "HttpRequest",
    "HttpResponse",
    "JsonResponse",
    "DataFrame",
    "Series",
    "UploadFile",
    "BackgroundTasks",
    "RequestValidationError",
    "JSONResponse",
    "StreamingResponse",
    "Query",
    "Path",
    "Body",
    "Header",
    "Security",
    "IntegrityError",
    "NoResultFound",
    "SQLAlchemyError",
    "OperationalError",
    "ObjectDoesNotExist",
    "ValidationError",
    "PermissionDenied",
    "Http404",
    "Model",
    "Manager",
    "Serializer",
    "ModelSerializer",
    "APIView",
    "ViewSet",
    "Blueprint",
    "Flask",
    "ClientSession",
    "AsyncClient",
    "Client",
    "Logger",
    "PermissionError",
    "FileNotFoundError",
    "TimeoutError",
    "ConnectionError",
    "LookupError",
    "NotImplementedError",
    "RuntimeError",
    "OSError",
    "UUID",
];

const TYPESCRIPT: &[&str] = &[
    "Promise",
    "Array",
    "ReadonlyArray",
    "Record",
    "Partial",
    "Required",
    "Readonly",
    "Pick",
    "Omit",
    "Exclude",
    "Extract",
    "NonNullable",
    "ReturnType",
    "Parameters",
    "Awaited",
    "Map",
    "Set",
    "WeakMap",
    "WeakSet",
    "Date",
    "Error",
    "TypeError",
    "RegExp",
    "Uint8Array",
    "ArrayBuffer",
    "Buffer",
    "URL",
    "URLSearchParams",
    "Response",
    "Request",
    "Headers",
    "AbortSignal",
    "AbortController",
    "Iterable",
    "AsyncIterable",
    "Iterator",
    "AsyncIterator",
    "Generator",
    "AsyncGenerator",
    "Function",
    "Object",
    "String",
    "Number",
    "Boolean",
    "Symbol",
    "BigInt",
    "ReadableStream",
    "WritableStream",
    "Blob",
    "File",
    "FormData",
    "NodeJS",
    "EventEmitter",
    "Readable",
    "Writable",
    "Stream",
    "Uint8ClampedArray",
    "DataView",
    // Express, NestJS, TypeORM, Prisma, React, RxJS
    "Router",
    "NextFunction",
    "RequestHandler",
    "Express",
    "Application",
    "Observable",
    "Repository",
    "DataSource",
    "EntityManager",
    "PrismaClient",
    "ReactNode",
    "JSX",
    "Injectable",
    "HttpException",
    "ExecutionContext",
    "ZodType",
    "ZodSchema",
    "ArgumentsHost",
    "ExceptionFilter",
    "CanActivate",
    "NestInterceptor",
    "CallHandler",
    "PipeTransform",
    "ArgumentMetadata",
    "NestMiddleware",
    "MiddlewareConsumer",
    "DynamicModule",
    "Provider",
    "ModuleRef",
    "INestApplication",
    "OnModuleInit",
    "OnModuleDestroy",
    "HttpStatus",
    "Logger",
    "ConfigService",
    "JwtService",
    "BadRequestException",
    "UnauthorizedException",
    "ForbiddenException",
    "NotFoundException",
    "ConflictException",
    "GoneException",
    "PayloadTooLargeException",
    "UnprocessableEntityException",
    "InternalServerErrorException",
    "ServiceUnavailableException",
    "ValidationPipe",
    "ParseIntPipe",
    "ParseUUIDPipe",
    "ValidationError",
    "FindOptionsWhere",
    "FindManyOptions",
    "DeepPartial",
    "QueryRunner",
    "SelectQueryBuilder",
    "InsertResult",
    "UpdateResult",
    "DeleteResult",
    "Prisma",
    "IncomingMessage",
    "ServerResponse",
    "SyntaxError",
    "RangeError",
    "NextRequest",
    "NextResponse",
    "FastifyInstance",
    "FastifyRequest",
    "FastifyReply",
    "Socket",
    "Server",
];

const GO: &[&str] = &[
    "Context",
    "Time",
    "Duration",
    "Reader",
    "Writer",
    "ReadCloser",
    "WriteCloser",
    "ServeMux",
    "Request",
    "ResponseWriter",
    "Handler",
    "HandlerFunc",
    "Mutex",
    "RWMutex",
    "WaitGroup",
    "Logger",
    "Client",
    "Server",
    "Conn",
    "Listener",
    "File",
    "Buffer",
    "Builder",
    "Error",
    "Value",
    "Ticker",
    "Timer",
    "Location",
    "Regexp",
    "Cmd",
    "Rows",
    "Row",
    "Tx",
    "DB",
    "Pool",
    "Router",
    "Engine",
    "RouterGroup",
    "Header",
    "Cookie",
    "URL",
    "Template",
    "Decoder",
    "Encoder",
    "Transport",
    "Cond",
    "Once",
    "Scanner",
    "Hash",
    "Rand",
    "Group",
    "Flag",
    "FlagSet",
    "Signal",
    "Process",
    "Stmt",
    "NullString",
    "NullTime",
    "Result",
    "Tag",
    "Errors",
    "Status",
    "Func",
    "Type",
    "Kind",
    "ReadWriter",
    "Closer",
    "Values",
    "Form",
    "Mux",
    "Ctx",
    "Echo",
    "Validate",
];

const JAVA: &[&str] = &[
    "String",
    "Object",
    "Integer",
    "Long",
    "Short",
    "Byte",
    "Double",
    "Float",
    "Boolean",
    "Character",
    "Void",
    "Number",
    "BigDecimal",
    "BigInteger",
    "List",
    "ArrayList",
    "LinkedList",
    "Map",
    "HashMap",
    "TreeMap",
    "LinkedHashMap",
    "Set",
    "HashSet",
    "TreeSet",
    "Collection",
    "Iterable",
    "Iterator",
    "Optional",
    "OptionalInt",
    "OptionalLong",
    "Stream",
    "IntStream",
    "Instant",
    "LocalDate",
    "LocalDateTime",
    "LocalTime",
    "ZonedDateTime",
    "OffsetDateTime",
    "Duration",
    "Period",
    "ZoneId",
    "Clock",
    "Year",
    "YearMonth",
    "DayOfWeek",
    "Month",
    "Exception",
    "RuntimeException",
    "IllegalArgumentException",
    "IllegalStateException",
    "IOException",
    "Throwable",
    "Error",
    "Runnable",
    "Callable",
    "Supplier",
    "Consumer",
    "Function",
    "BiFunction",
    "Predicate",
    "CompletableFuture",
    "Future",
    "CompletionStage",
    "Executor",
    "ExecutorService",
    "Path",
    "File",
    "InputStream",
    "OutputStream",
    "Reader",
    "Writer",
    "Charset",
    "Pattern",
    "Class",
    "Comparable",
    "Comparator",
    "Deque",
    "Queue",
    "Locale",
    "Currency",
    "Thread",
    "AutoCloseable",
    "CharSequence",
    "StringBuilder",
    "Record",
    "Enum",
    "Collectors",
    "Flux",
    "Mono",
    // Spring, Jakarta, Micronaut: the types a Java service design uses unqualified
    "ResponseEntity",
    "HttpStatus",
    "HttpHeaders",
    "Pageable",
    "Page",
    "Sort",
    "JpaRepository",
    "CrudRepository",
    "MultipartFile",
    "Model",
    "HttpServletRequest",
    "HttpServletResponse",
    "RestTemplate",
    "WebClient",
    "ApplicationEvent",
    "Authentication",
    "UserDetails",
    "EntityManager",
    "Transactional",
    "Logger",
    "JsonNode",
    "ObjectMapper",
    // the exceptions and error types a Spring or Jakarta design maps to HTTP answers
    "ProblemDetail",
    "ErrorResponse",
    "ErrorResponseException",
    "ResponseStatusException",
    "MethodArgumentNotValidException",
    "MethodArgumentTypeMismatchException",
    "HttpMessageNotReadableException",
    "MissingServletRequestParameterException",
    "HttpRequestMethodNotSupportedException",
    "NoResourceFoundException",
    "BindException",
    "BindingResult",
    "FieldError",
    "Errors",
    "ConstraintViolationException",
    "ConstraintViolation",
    "DataIntegrityViolationException",
    "DataAccessException",
    "EmptyResultDataAccessException",
    "DuplicateKeyException",
    "OptimisticLockingFailureException",
    "ObjectOptimisticLockingFailureException",
    "EntityNotFoundException",
    "OptimisticLockException",
    "PersistenceException",
    "NoSuchElementException",
    "AccessDeniedException",
    "AuthenticationException",
    "BadCredentialsException",
    "UsernameNotFoundException",
    "UnsupportedOperationException",
    "NullPointerException",
    "IndexOutOfBoundsException",
    "ArithmeticException",
    "DateTimeException",
    "DateTimeParseException",
    "UncheckedIOException",
    "InterruptedException",
    "ExecutionException",
    "TimeoutException",
    "CancellationException",
    "ConcurrentModificationException",
    "WebRequest",
    "ServletWebRequest",
    "NativeWebRequest",
    "HttpEntity",
    "RequestEntity",
    "MediaType",
    "HttpMethod",
    "HttpStatusCode",
    "URI",
    "UriComponentsBuilder",
    "ServerWebExchange",
    "ServerHttpRequest",
    "ServerHttpResponse",
    "Principal",
    "Jwt",
    "SecurityFilterChain",
    "HttpSecurity",
    "PasswordEncoder",
    "JdbcTemplate",
    "NamedParameterJdbcTemplate",
    "ApplicationEventPublisher",
    "KafkaTemplate",
    "RestClient",
    "MeterRegistry",
    "Specification",
    "Slice",
    "PageRequest",
    "PageImpl",
    "Validator",
    "ConstraintValidator",
    "ConstraintValidatorContext",
    "Environment",
    "ApplicationContext",
    "ApplicationRunner",
    "CommandLineRunner",
    "SpringApplication",
];

const KOTLIN: &[&str] = &[
    "String",
    "Int",
    "Long",
    "Short",
    "Byte",
    "Double",
    "Float",
    "Boolean",
    "Char",
    "Unit",
    "Nothing",
    "Any",
    "Array",
    "IntArray",
    "ByteArray",
    "List",
    "MutableList",
    "Map",
    "MutableMap",
    "Set",
    "MutableSet",
    "Collection",
    "Iterable",
    "Sequence",
    "Pair",
    "Triple",
    "Result",
    "Regex",
    "Comparable",
    "Throwable",
    "Exception",
    "Flow",
    "StateFlow",
    "SharedFlow",
    "MutableStateFlow",
    "Deferred",
    "Job",
    "CoroutineScope",
    "Channel",
    "Duration",
    "Instant",
    "LocalDate",
    "LocalDateTime",
    "BigDecimal",
    "Lazy",
    // Ktor, Exposed, Spring for Kotlin
    "ApplicationCall",
    "Route",
    "Routing",
    "Application",
    "HttpStatusCode",
    "Database",
    "Transaction",
    "ResultRow",
    "Table",
    "ResponseEntity",
    "HttpClient",
    "Json",
];

const CSHARP: &[&str] = &[
    "String",
    "Object",
    "Int32",
    "Int64",
    "Boolean",
    "Decimal",
    "Double",
    "Guid",
    "DateTime",
    "DateTimeOffset",
    "DateOnly",
    "TimeOnly",
    "TimeSpan",
    "Task",
    "ValueTask",
    "CancellationToken",
    "IEnumerable",
    "IAsyncEnumerable",
    "IReadOnlyList",
    "IReadOnlyCollection",
    "IReadOnlyDictionary",
    "IList",
    "ICollection",
    "IDictionary",
    "List",
    "Dictionary",
    "HashSet",
    "Queue",
    "Stack",
    "Func",
    "Action",
    "Predicate",
    "Exception",
    "ArgumentException",
    "InvalidOperationException",
    "Stream",
    "TextReader",
    "TextWriter",
    "Uri",
    "HttpClient",
    "HttpResponseMessage",
    "HttpRequestMessage",
    "ILogger",
    "IServiceProvider",
    "IServiceCollection",
    "IConfiguration",
    "IOptions",
    "Span",
    "ReadOnlySpan",
    "Memory",
    "ReadOnlyMemory",
    "Nullable",
    "Lazy",
    "Tuple",
    "ValueTuple",
    "Type",
    "Attribute",
    "IDisposable",
    "IAsyncDisposable",
    "StringBuilder",
    "Encoding",
    "Regex",
    "Random",
    "TimeProvider",
    "Enum",
    "Array",
    "IQueryable",
    "Expression",
    // ASP.NET Core, EF Core
    "IActionResult",
    "ActionResult",
    "ControllerBase",
    "IResult",
    "Results",
    "WebApplication",
    "WebApplicationBuilder",
    "HttpContext",
    "HttpRequest",
    "HttpResponse",
    "DbContext",
    "DbSet",
    "ModelBuilder",
    "IHostedService",
    "BackgroundService",
    "IMediator",
    "IFormFile",
    "ClaimsPrincipal",
    "JsonSerializerOptions",
    "IHttpClientFactory",
    "IMemoryCache",
    "ArgumentNullException",
    "ArgumentOutOfRangeException",
    "KeyNotFoundException",
    "NotSupportedException",
    "NotImplementedException",
    "UnauthorizedAccessException",
    "TimeoutException",
    "OperationCanceledException",
    "TaskCanceledException",
    "FormatException",
    "IOException",
    "FileNotFoundException",
    "HttpRequestException",
    "DbUpdateException",
    "DbUpdateConcurrencyException",
    "ValidationException",
    "ProblemDetails",
    "ValidationProblemDetails",
    "ModelStateDictionary",
    "IExceptionHandler",
    "ExceptionContext",
    "IExceptionFilter",
    "RequestDelegate",
    "IMiddleware",
    "ILoggerFactory",
    "IHostEnvironment",
    "IWebHostEnvironment",
    "IValidator",
    "AbstractValidator",
    "IRequest",
    "IRequestHandler",
    "INotification",
    "JsonElement",
    "JsonDocument",
];

const RUST: &[&str] = &[
    "String",
    "Vec",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Box",
    "Rc",
    "Arc",
    "RefCell",
    "Cell",
    "Mutex",
    "RwLock",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "VecDeque",
    "BinaryHeap",
    "Path",
    "PathBuf",
    "File",
    "Duration",
    "Instant",
    "SystemTime",
    "Cow",
    "Self",
    "Error",
    "Display",
    "Debug",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "Iterator",
    "IntoIterator",
    "Fn",
    "FnMut",
    "FnOnce",
    "Future",
    "Pin",
    "PhantomData",
    "Ordering",
    "Range",
    "ExitCode",
    "OsString",
    "OsStr",
    "Formatter",
    "Hash",
    "Hasher",
    "Default",
    "From",
    "Into",
    "AsRef",
    "Read",
    "Write",
    "BufRead",
    "BufReader",
    "BufWriter",
    "Stdin",
    "Stdout",
    "TcpStream",
    "TcpListener",
    "SocketAddr",
    "IpAddr",
    "Command",
    "Child",
    "Sender",
    "Receiver",
    "JoinHandle",
    "Any",
    "Seek",
    "Infallible",
    "NonZeroU32",
    "NonZeroU64",
    // the crates a Rust design names most (serde, tokio, axum, sqlx, chrono, uuid, anyhow)
    "Serialize",
    "Deserialize",
    "Value",
    "Uuid",
    "DateTime",
    "Utc",
    "NaiveDate",
    "Json",
    "State",
    "Router",
    "Extension",
    "Query",
    "IntoResponse",
    "Response",
    "StatusCode",
    "PgPool",
    "Pool",
    "Bytes",
    "Client",
    "Runtime",
    "Parser",
    "Subcommand",
    "Args",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_skip_qualified_constants_and_annotations() {
        let got: Vec<String> = type_names(
            "(ctx context.Context, @PathVariable id: UUID, [FromBody] Body b, x: Order, m: \"Note\") -> Result<Vec<Entry>, std::io::Error> // FR",
            0,
        )
        .into_iter()
        .map(|(n, _)| n)
        .collect();
        assert_eq!(got, ["Body", "Order", "Result", "Vec", "Entry"]);
    }

    #[test]
    fn languages_from_tags_paths_and_stack() {
        assert_eq!(Lang::from_tag("csharp"), Some(Lang::CSharp));
        assert_eq!(Lang::from_tag("yaml"), None);
        assert_eq!(Lang::from_path("src/a/b.kt"), Some(Lang::Kotlin));
        assert_eq!(Lang::stated("Java 21 and Spring Boot 3"), Lang::Java);
        assert_eq!(Lang::stated("A Go 1.22 service"), Lang::Go);
        assert_eq!(Lang::stated("no stack"), Lang::Unknown);
        assert!(Lang::CSharp.is_builtin("Guid") && !Lang::Python.is_builtin("Guid"));
        assert!(Lang::Unknown.is_builtin("Guid"));
        for l in Lang::ALL {
            assert!(!test_convention(l).is_empty());
        }
    }
}
