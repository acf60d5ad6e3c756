# DocsAssistant web app. Use with docker-compose.yml (PostgreSQL + pgvector and Ollama services).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    DOCSASSISTANT_DATA_DIR=/data

WORKDIR /app

# CPU-only torch first (from PyPI the default Linux wheel pulls several GB of CUDA);
# requirements.txt pins the same version, so pip keeps this one.
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
COPY requirements.txt .
RUN pip install --index-url "$TORCH_INDEX_URL" "$(grep -E '^torch==' requirements.txt)" \
    && pip install -r requirements.txt

COPY . .
RUN pip install -e . --no-deps \
    && useradd --create-home --uid 1000 app \
    && mkdir -p /data && chown app:app /data
USER app

VOLUME ["/data"]
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"

# Migrate the store and index the bundled docs/ when it is empty, then serve.
CMD ["sh", "-c", "docsassistant bootstrap && exec streamlit run app.py --server.address 0.0.0.0 \
     --server.port 8501 --server.headless true --browser.gatherUsageStats false"]
