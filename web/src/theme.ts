/** Light, dark, or the system's choice (prefers-color-scheme), kept in this browser. */
export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'finwatch.console.theme';
const media = window.matchMedia('(prefers-color-scheme: dark)');

export function themeChoice(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

export function applyTheme(choice: ThemeChoice = themeChoice()): void {
  const dark = choice === 'dark' || (choice === 'system' && media.matches);
  document.documentElement.classList.toggle('dark', dark);
}

export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // Without storage the choice lasts for this page.
  }
  applyTheme(choice);
}

media.addEventListener('change', () => applyTheme());
