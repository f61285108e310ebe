#ifndef FETCHLOG_CEDITLINE_SHIM_H
#define FETCHLOG_CEDITLINE_SHIM_H
// libedit (BSD editline) for the REPL's line editing. Swift 6 cannot touch C global
// variables (they are shared mutable state), so every global the REPL needs is read or
// written through a small static inline function here. Swift cannot call C variadic
// functions either, so each el_set / el_get / history call the REPL needs has a
// non-variadic wrapper here (prefix `fl_`).
#include <stdio.h>
#include <locale.h>
#include <string.h>
#include <wchar.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <histedit.h>

// ---- C globals ----

/// An editor on the process's standard streams (the `stdin` / `stdout` / `stderr` globals).
static inline EditLine *fl_el_init_stdio(const char *program) {
    return el_init(program, stdin, stdout, stderr);
}

/// Writes a string to `stdout` (the same FILE libedit writes to) and flushes it.
static inline void fl_stdout_write(const char *text) {
    fputs(text, stdout);
    fflush(stdout);
}

static inline void fl_stdout_flush(void) { fflush(stdout); }

/// The terminal's width in columns (TIOCGWINSZ on fd), or 80 if it has none.
static inline int fl_terminal_columns(int fd) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
}

/// Makes sure LC_CTYPE is a UTF-8 locale so libedit reads and echoes non-ASCII text:
/// the environment's locale if it has one, else C.UTF-8. Returns 1 if a UTF-8 locale is set.
static inline int fl_ensure_utf8_ctype(void) {
    const char *current = setlocale(LC_CTYPE, NULL);
    if (current != NULL && strcmp(current, "C") != 0 && strcmp(current, "POSIX") != 0) return 1;
    const char *fromEnv = setlocale(LC_CTYPE, "");
    if (fromEnv != NULL && strcmp(fromEnv, "C") != 0 && strcmp(fromEnv, "POSIX") != 0) return 1;
    return setlocale(LC_CTYPE, "C.UTF-8") != NULL;
}

/// A non-blocking, close-on-exec pipe (the line editor's self-pipe). 0 on success.
static inline int fl_nonblocking_pipe(int fds[2]) {
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    }
    return 0;
}

// ---- signals ----
// The shell observes SIGINT (Ctrl-C) and SIGCONT (back from Ctrl-Z) instead of dying or
// ignoring them: the handler only writes the signal's number (one byte) to a pipe, the one
// async-signal-safe thing it needs; a thread of the REPL reads the pipe and acts.
// Used from one Swift file only (Interrupts.swift), so the static below exists once.

static int fl_signal_pipe_fd = -1;

static void fl_signal_to_pipe(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    if (fl_signal_pipe_fd >= 0) { ssize_t ignored = write(fl_signal_pipe_fd, &byte, 1); (void)ignored; }
    errno = saved;
}

/// Sends `signo` to the pipe `fd` from now on (SA_RESTART, so blocking reads elsewhere
/// go on). A program this execs gets the default disposition back. 0 on success.
static inline int fl_signal_to_pipe_install(int signo, int fd) {
    fl_signal_pipe_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = fl_signal_to_pipe;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    return sigaction(signo, &action, NULL);
}

// ---- el_set / el_get ----

typedef char *(*fl_prompt_fn)(EditLine *);
typedef unsigned char (*fl_command_fn)(EditLine *, int);
typedef int (*fl_getc_fn)(EditLine *, wchar_t *);

static inline int fl_el_set_prompt(EditLine *el, fl_prompt_fn fn) { return el_set(el, EL_PROMPT, fn); }
static inline int fl_el_set_editor(EditLine *el, const char *mode) { return el_set(el, EL_EDITOR, mode); }
static inline int fl_el_set_signal(EditLine *el, int on) { return el_set(el, EL_SIGNAL, on); }
static inline int fl_el_set_hist(EditLine *el, History *h) { return el_set(el, EL_HIST, history, h); }
static inline int fl_el_set_clientdata(EditLine *el, void *data) { return el_set(el, EL_CLIENTDATA, data); }
static inline int fl_el_set_getcfn(EditLine *el, fl_getc_fn fn) { return el_set(el, EL_GETCFN, fn); }
/// 1: puts the terminal in libedit's edit (raw) mode now; 0: back to cooked mode.
static inline int fl_el_prep_term(EditLine *el, int raw) { return el_set(el, EL_PREP_TERM, raw); }
/// Redraws prompt and line from scratch, assuming the cursor is at the start of an empty line.
static inline int fl_el_refresh(EditLine *el) { return el_set(el, EL_REFRESH); }
/// Adds a named editor command.
static inline int fl_el_addfn(EditLine *el, const char *name, const char *help, fl_command_fn fn) {
    return el_set(el, EL_ADDFN, name, help, fn);
}
/// Binds one key sequence (e.g. "^I") to a command name.
static inline int fl_el_bind(EditLine *el, const char *key, const char *command) {
    return el_set(el, EL_BIND, key, command, (const char *)NULL);
}

static inline void *fl_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    if (el_get(el, EL_CLIENTDATA, &data) != 0) return NULL;
    return data;
}
/// 1 if the editor edits (stdin is a terminal and editing is on), 0 if it only reads lines.
static inline int fl_el_get_editmode(EditLine *el) {
    int mode = 0;
    if (el_get(el, EL_EDITMODE, &mode) != 0) return 0;
    return mode;
}

// ---- history ----

static inline int fl_history_setsize(History *h, int size) {
    HistEvent ev;
    return history(h, &ev, H_SETSIZE, size);
}
static inline int fl_history_setunique(History *h, int unique) {
    HistEvent ev;
    return history(h, &ev, H_SETUNIQUE, unique);
}
static inline int fl_history_enter(History *h, const char *line) {
    HistEvent ev;
    return history(h, &ev, H_ENTER, line);
}
/// The newest entry's text, or NULL when there is none (valid until the history changes).
static inline const char *fl_history_newest(History *h) {
    HistEvent ev;
    if (history(h, &ev, H_FIRST) < 0) return NULL;
    return ev.str;
}
/// Deletes the newest entry; 0 on success, -1 when there is none.
static inline int fl_history_delete_newest(History *h) {
    HistEvent ev;
    if (history(h, &ev, H_FIRST) < 0) return -1;
    return history(h, &ev, H_DEL, ev.num) < 0 ? -1 : 0;
}
/// Number of entries loaded, or -1.
static inline int fl_history_load(History *h, const char *path) {
    HistEvent ev;
    return history(h, &ev, H_LOAD, path);
}
/// Number of entries saved, or -1.
static inline int fl_history_save(History *h, const char *path) {
    HistEvent ev;
    return history(h, &ev, H_SAVE, path);
}

#endif
