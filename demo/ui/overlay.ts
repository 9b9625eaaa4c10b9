/** The loading indicator and the error card, both in index.html. */
export class Overlay {
  private readonly _loading = document.getElementById("loading") as HTMLDivElement;
  private readonly _loadingText = this._loading.querySelector("span") as HTMLSpanElement;
  private readonly _error = document.getElementById("error") as HTMLDivElement;
  private readonly _errorText = this._error.querySelector("p") as HTMLParagraphElement;

  constructor() {
    this._error.querySelector("button")!.addEventListener("click", () => this.clearError());
  }

  loading(message: string | null): void {
    this._loading.hidden = message === null;
    if (message !== null) this._loadingText.textContent = message;
  }

  error(message: string): void {
    this._errorText.textContent = message;
    this._error.hidden = false;
  }

  clearError(): void {
    this._error.hidden = true;
  }
}
